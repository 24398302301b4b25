-- Append one inbound message unless its id was seen within the dedupe
-- window, and mark the chat as having work, in one atomic step.
-- KEYS[1] the id's dedupe record, KEYS[2] pending list, KEYS[3] the
-- chat's work zset (single node only; on a cluster it is in another slot
-- and the caller adds the mark after this script)
-- ARGV[1] inbound id ("" skips dedupe), ARGV[2] now (unix ms),
-- ARGV[3] dedupe window (ms), ARGV[4] inbound JSON, ARGV[5] the mark's
-- due time (unix ms), ARGV[6] the mark's member, ARGV[7] "1" when the
-- caller WAITs for replicas after this script (replicas.go)
-- Returns 1 when stored, 0 for a duplicate.
--
-- The record is one key per id, holding the unix ms it arrived at, that
-- expires with the window. A record older than the window by the caller's
-- clock (one whose key has not expired yet) is taken over.
--
-- Nothing is left half done. Redis refuses a script for memory
-- (noeviction) only at its first write, and once that passed the others
-- pass too; the first write is the dedupe record (SET NX, which also
-- tells a new id from a seen one), so a refused script stored nothing. A
-- record without its input would refuse the platform's retry and lose the
-- message, so should the mark or the input fail for any other reason the
-- record is undone before the error is returned (a mark without input is
-- harmless: a worker finds nothing).
--
-- A duplicate is answered only once the first copy is known to last: a
-- first Append may have stored the input and then been refused for want
-- of replicas, and its retry, finding the record, must not acknowledge
-- input a failover could still lose. WAIT counts the replicas that have
-- this connection's last write, and a duplicate writes nothing; so, when
-- the caller WAITs, the duplicate rewrites the record's expiry unchanged
-- (PEXPIRE, which a full Redis still takes), and WAIT then covers the
-- record and the input stored with it before it.
local id, now = ARGV[1], ARGV[2]
local oldest = tonumber(now) - tonumber(ARGV[3])
local previous = false -- the record of an id seen before the window

-- duplicate answers 0 for a duplicate recorded at key.
local function duplicate(key)
  if ARGV[7] == '1' then
    local left = redis.call('PTTL', key)
    if left > 0 then
      redis.call('PEXPIRE', key, left)
    end
  end
  return 0
end

if id ~= '' then
  previous = redis.call('SET', KEYS[1], now, 'NX', 'GET', 'PX', ARGV[3])
  if previous then
    if (tonumber(previous) or 0) >= oldest then
      return duplicate(KEYS[1])
    end
    redis.call('SET', KEYS[1], now, 'PX', ARGV[3])
  end
end

-- try runs one write; on failure it undoes the dedupe record and returns
-- the error to raise.
local function try(...)
  local res = redis.pcall(...)
  if type(res) ~= 'table' or not res.err then
    return nil
  end
  if previous then
    redis.call('SET', KEYS[1], previous, 'PX', ARGV[3])
  elseif id ~= '' then
    redis.call('DEL', KEYS[1])
  end
  return res
end

local failed = KEYS[3] and try('ZADD', KEYS[3], 'NX', ARGV[5], ARGV[6])
failed = failed or try('RPUSH', KEYS[2], ARGV[4])
if failed then
  return redis.error_reply(failed.err)
end
return 1
