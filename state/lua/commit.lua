-- Apply one turn atomically, fenced by the lease and the state version.
-- KEYS[1] lease, KEYS[2] state hash, KEYS[3] pending list, KEYS[4] outbox list
-- ARGV[1] lease, ARGV[2] expected version, ARGV[3] "1" to store a blob or
-- "0" to delete the state, ARGV[4] blob, ARGV[5] state TTL (ms, 0 = none),
-- ARGV[6] pending entries consumed, ARGV[7] unix ms the state expires at
-- ("0" for never; kept in the hash so Begin needs no PTTL),
-- ARGV[8..] outbox JSON entries
-- Returns 0 on success, 1 when the lease moved, 2 when the version moved.
--
-- The expiry slides at every commit, but within 1% of the TTL (at most a
-- minute): a commit that would move it by less keeps the current one and
-- saves the PEXPIRE, so a chat's state may expire that much earlier than
-- TTL after its last turn. "e" is only ever a lower bound of the key's
-- real expiry (an older replica's commit extends the key without it).
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 1
end
local cur = redis.call('HMGET', KEYS[2], 'v', 'e')
local version = tonumber(cur[1] or '0')
if version ~= tonumber(ARGV[2]) then
  return 2
end
local function store()
  local v = string.format('%d', version + 1)
  local ttl, expires, e = tonumber(ARGV[5]), tonumber(ARGV[7]), tonumber(cur[2] or '-1')
  if ttl > 0 and e > 0 and expires - e < math.min(ttl / 100, 60000) then
    redis.call('HSET', KEYS[2], 'v', v, 'b', ARGV[4])
  elseif ttl > 0 then
    redis.call('HSET', KEYS[2], 'v', v, 'b', ARGV[4], 'e', ARGV[7])
    redis.call('PEXPIRE', KEYS[2], ttl)
  elseif e == 0 then
    redis.call('HSET', KEYS[2], 'v', v, 'b', ARGV[4])
  else
    redis.call('HSET', KEYS[2], 'v', v, 'b', ARGV[4], 'e', '0')
    redis.call('PERSIST', KEYS[2])
  end
end
if ARGV[3] == '1' then
  store()
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
