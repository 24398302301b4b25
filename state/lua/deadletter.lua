-- Add a dead letter, after dropping those past retention.
-- KEYS[1] index zset (all scores 0; ids sort by time), KEYS[2] data hash
-- (id -> JSON), KEYS[3] counts hash ("<channel>|<kind>" -> n)
-- ARGV[1] cutoff id: ids below it are past retention
-- ARGV[2] new id ("" only trims), ARGV[3] its JSON, ARGV[4] its count field
-- Returns the number of entries dropped for age.
-- forget: forgetdead.lua, prepended.
local old = redis.call('ZRANGEBYLEX', KEYS[1], '-', '(' .. ARGV[1], 'LIMIT', 0, 1000)
for _, id in ipairs(old) do
  forget(id)
end
if ARGV[2] ~= '' then
  redis.call('ZADD', KEYS[1], 0, ARGV[2])
  redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
  redis.call('HINCRBY', KEYS[3], ARGV[4], 1)
end
return #old
