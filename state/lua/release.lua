-- Drop the lease if the caller still holds it.
-- KEYS[1] lease; ARGV[1] lease
-- Returns 1 when released, 0 when the lease moved.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('DEL', KEYS[1])
return 1
