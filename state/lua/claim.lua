-- Claim due chats of one work shard: hide each for another visibility
-- timeout, unless another replica claimed it first.
-- KEYS[1] work shard zset
-- ARGV[1] now (unix ms), ARGV[2] hidden until (unix ms), ARGV[3..] members
-- Returns the members claimed.
local now = tonumber(ARGV[1])
local claimed = {}
for i = 3, #ARGV do
  local due = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if due and tonumber(due) <= now then
    redis.call('ZADD', KEYS[1], ARGV[2], ARGV[i])
    claimed[#claimed + 1] = ARGV[i]
  end
end
return claimed
