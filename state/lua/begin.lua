-- Take (or keep) the chat's lease and read everything a turn needs.
-- KEYS[1] lease, KEYS[2] state hash, KEYS[3] pending list, KEYS[4] outbox list
-- ARGV[1] lease the caller holds ("" for none), ARGV[2] fresh token,
-- ARGV[3] lease TTL (ms), ARGV[4] max pending entries to return
-- Returns 0 when another worker holds the lease, else
-- {token, version or "", blob or "", state PTTL, pending, outbox}.
local held = redis.call('GET', KEYS[1])
local token = ARGV[1]
if not held then
  if token == '' then
    token = ARGV[2]
  end
  redis.call('SET', KEYS[1], token, 'PX', ARGV[3])
elseif token ~= '' and held == token then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
else
  return 0
end
local st = redis.call('HMGET', KEYS[2], 'v', 'b')
return {
  token,
  st[1] or '',
  st[2] or '',
  redis.call('PTTL', KEYS[2]),
  redis.call('LRANGE', KEYS[3], 0, tonumber(ARGV[4]) - 1),
  redis.call('LRANGE', KEYS[4], 0, -1),
}
