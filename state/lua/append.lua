-- Append one inbound message unless its id was seen within the dedupe
-- window, and mark the chat as having work, in one atomic step.
-- KEYS[1] seen zset, KEYS[2] pending list, KEYS[3] the chat's work zset
-- (single node only; on a cluster it is in another slot and the caller
-- adds the mark after this script)
-- ARGV[1] inbound id ("" skips dedupe), ARGV[2] now (unix ms),
-- ARGV[3] dedupe window (ms), ARGV[4] inbound JSON, ARGV[5] the mark's
-- due time (unix ms), ARGV[6] the mark's member
-- Returns 1 when stored, 0 for a duplicate.
--
-- Writes go in an order that leaves nothing half done: a script is not
-- rolled back when a command fails, but Redis refuses a script for memory
-- (noeviction) only at its first write. So the mark goes first (a mark
-- without input is harmless: a worker finds nothing), the input next, and
-- the dedupe record last (a record without input would refuse the
-- platform's retry and lose the message).
local id = ARGV[1]
local oldest = tonumber(ARGV[2]) - tonumber(ARGV[3])
if id ~= '' then
  local seen = redis.call('ZSCORE', KEYS[1], id)
  if seen and tonumber(seen) >= oldest then
    return 0
  end
end
if KEYS[3] then
  redis.call('ZADD', KEYS[3], 'NX', ARGV[5], ARGV[6])
end
redis.call('RPUSH', KEYS[2], ARGV[4])
if id ~= '' then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('(%d', oldest))
  redis.call('ZADD', KEYS[1], ARGV[2], id)
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return 1
