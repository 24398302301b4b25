-- Apply one turn atomically, fenced by the lease and the state version.
-- KEYS[1] lease, KEYS[2] state hash, KEYS[3] pending list, KEYS[4] outbox list
-- ARGV[1] lease, ARGV[2] expected version, ARGV[3] "1" to store a blob or
-- "0" to delete the state, ARGV[4] blob, ARGV[5] state TTL (ms, 0 = none),
-- ARGV[6] pending entries consumed, ARGV[7] unix ms the state expires at
-- ("0" for never; kept in the hash so Begin needs no PTTL),
-- ARGV[8..] outbox JSON entries
-- Returns 0 on success, 1 when the lease moved, 2 when the version moved.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 1
end
local version = tonumber(redis.call('HGET', KEYS[2], 'v') or '0')
if version ~= tonumber(ARGV[2]) then
  return 2
end
if ARGV[3] == '1' then
  redis.call('HSET', KEYS[2], 'v', string.format('%d', version + 1), 'b', ARGV[4], 'e', ARGV[7])
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
if #ARGV >= 8 then
  redis.call('RPUSH', KEYS[4], unpack(ARGV, 8))
end
return 0
