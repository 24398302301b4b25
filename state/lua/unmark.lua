-- Remove a chat's work mark when it is still the one its finishing worker
-- set on a cluster (finishCluster): an Append that came after the finish
-- script moved it sooner (ZADD LT), and then it stays for the new input.
-- KEYS[1] work shard zset
-- ARGV[1] member, ARGV[2] the score the worker set
-- Returns 1 when the mark was removed, else 0.
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
