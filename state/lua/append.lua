-- Append one inbound message unless its id was seen within the dedupe window.
-- KEYS[1] seen zset, KEYS[2] pending list
-- ARGV[1] inbound id ("" skips dedupe), ARGV[2] now (unix ms),
-- ARGV[3] dedupe window (ms), ARGV[4] inbound JSON
-- Returns 1 when stored, 0 for a duplicate.
local id = ARGV[1]
if id ~= '' then
  local oldest = tonumber(ARGV[2]) - tonumber(ARGV[3])
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('(%d', oldest))
  if redis.call('ZSCORE', KEYS[1], id) then
    return 0
  end
  redis.call('ZADD', KEYS[1], ARGV[2], id)
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
redis.call('RPUSH', KEYS[2], ARGV[4])
return 1
