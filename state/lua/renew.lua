-- Extend the lease if the caller still holds it.
-- KEYS[1] lease; ARGV[1] lease, ARGV[2] lease TTL (ms)
-- Returns 1 when extended, 0 when the lease moved.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
