-- Take or keep a relay lease.
-- KEYS[1] lease; ARGV[1] token, ARGV[2] TTL (ms)
-- Returns 1 when the caller holds the lease for ARGV[2] from now, else 0.
local held = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'GET', 'PX', ARGV[2])
if not held then
  return 1
end
if held ~= ARGV[1] then
  return 0
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
