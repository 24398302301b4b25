-- Remove a delivered batch from the head of a stream list and note each
-- chat's last delivered seq in the unit's seq hash.
-- KEYS[1] the sink's list, KEYS[2] the unit's seq hash
-- ARGV[1] the number of records delivered N, ARGV[2] the Nth record as
-- read (the batch's last), ARGV[3] "1" to count the records left,
-- ARGV[4..] pairs of chat member and "<seq>:<ms>" of its last delivered
-- record
-- Returns the records left in the list (1 when ARGV[3] is not "1": "some
-- or none"), or -1 when the list's Nth entry is not the one delivered
-- (another relay trimmed it meanwhile: nothing is removed, the caller
-- reads again).
local n = tonumber(ARGV[1])
if redis.call('LINDEX', KEYS[1], n - 1) ~= ARGV[2] then
  return -1
end
redis.call('LTRIM', KEYS[1], n, -1)
if #ARGV >= 5 then
  redis.call('HSET', KEYS[2], unpack(ARGV, 4))
end
if ARGV[3] == '1' then
  return redis.call('LLEN', KEYS[1])
end
return 1
