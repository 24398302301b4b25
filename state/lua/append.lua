-- Append one inbound message unless its id was seen within the dedupe
-- window, and mark the chat as having work, in one atomic step.
-- KEYS[1] seen zset, KEYS[2] pending list, KEYS[3] the chat's work zset
-- (single node only; on a cluster it is in another slot and the caller
-- adds the mark after this script)
-- ARGV[1] inbound id ("" skips dedupe), ARGV[2] now (unix ms),
-- ARGV[3] dedupe window (ms), ARGV[4] inbound JSON, ARGV[5] the mark's
-- due time (unix ms), ARGV[6] the mark's member, ARGV[7] "1" to drop the
-- ids older than the window from the seen zset (the caller asks for it on
-- a fraction of appends: the ids are checked by age, so old ones only
-- take room until then, or until the zset expires with the window)
-- Returns 1 when stored, 0 for a duplicate.
--
-- Nothing is left half done. Redis refuses a script for memory
-- (noeviction) only at its first write, and once that passed the others
-- pass too; the first write is the dedupe record (ZADD NX, which also
-- tells a new id from a seen one), so a refused script stored nothing. A
-- record without its input would refuse the platform's retry and lose the
-- message, so should the mark or the input fail for any other reason the
-- record is undone before the error is returned (a mark without input is
-- harmless: a worker finds nothing).
local id, now = ARGV[1], ARGV[2]
local oldest = tonumber(now) - tonumber(ARGV[3])
local previous = false -- the score an id seen before the window had
if id ~= '' then
  if redis.call('ZADD', KEYS[1], 'NX', now, id) == 0 then
    previous = redis.call('ZSCORE', KEYS[1], id)
    if tonumber(previous) >= oldest then
      return 0
    end
    redis.call('ZADD', KEYS[1], now, id)
  end
end

-- try runs one write; on failure it undoes the dedupe record and returns
-- the error to raise.
local function try(...)
  local res = redis.pcall(...)
  if type(res) ~= 'table' or not res.err then
    return nil
  end
  if id ~= '' and previous then
    redis.call('ZADD', KEYS[1], previous, id)
  elseif id ~= '' then
    redis.call('ZREM', KEYS[1], id)
  end
  return res
end

local failed = KEYS[3] and try('ZADD', KEYS[3], 'NX', ARGV[5], ARGV[6])
failed = failed or try('RPUSH', KEYS[2], ARGV[4])
if failed then
  return redis.error_reply(failed.err)
end
if id ~= '' then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  if ARGV[7] == '1' then
    redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('(%d', oldest))
  end
end
return 1
