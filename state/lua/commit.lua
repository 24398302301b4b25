-- Apply one turn atomically, fenced by the lease and the state version.
-- KEYS[1] lease, KEYS[2] state hash, KEYS[3] pending list, KEYS[4] outbox list
-- ARGV[1] lease, ARGV[2] expected version, ARGV[3] "1" to store a blob or
-- "0" to delete the state, ARGV[4] blob, ARGV[5] state TTL (ms, 0 = none),
-- ARGV[6] pending entries consumed, ARGV[7] "1" to record the chat list's
-- fields (ARGV[8] preview, ARGV[9] activity ms, ARGV[10] paused-until ms)
-- in the state hash, ARGV[11..] outbox JSON entries
-- Returns 0 on success, 1 when the lease moved, 2 when the version moved.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 1
end
local version = tonumber(redis.call('HGET', KEYS[2], 'v') or '0')
if version ~= tonumber(ARGV[2]) then
  return 2
end
if ARGV[3] == '1' then
  redis.call('HSET', KEYS[2], 'v', string.format('%d', version + 1), 'b', ARGV[4])
  if ARGV[7] == '1' then
    redis.call('HSET', KEYS[2], 'p', ARGV[8], 'a', ARGV[9], 'u', ARGV[10])
  end
  local ttl = tonumber(ARGV[5])
  if ttl > 0 then
    redis.call('PEXPIRE', KEYS[2], ttl)
  else
    redis.call('PERSIST', KEYS[2])
  end
else
  redis.call('DEL', KEYS[2])
end
local consumed = tonumber(ARGV[6])
if consumed > 0 then
  redis.call('LTRIM', KEYS[3], consumed, -1)
end
for i = 11, #ARGV do
  redis.call('RPUSH', KEYS[4], ARGV[i])
end
return 0
