-- One step of a sink's relay over a stream unit: remove what the sink
-- acknowledged from the head of the unit's list, noting each chat's last
-- seq in the sink's seq hash of the unit, then read and number what
-- follows.
-- KEYS[1] the sink's list of the unit, KEYS[2] the sink's seq hash of the
-- unit (chat -> "<last seq>:<commit ms>")
-- ARGV[1] the number of records acknowledged N ("0": none), ARGV[2] the Nth
-- record as read, ARGV[3] the most records to read M ("0": none), ARGV[4]
-- "1" to count the records left, ARGV[5..] pairs of chat (as its records
-- store it) and "<seq>:<ms>" of its last acknowledged record
-- Returns {acked, left, records, seqs, chats, chat of each record}: acked
-- 0 when the list's Nth entry is not ARGV[2] (another relay trimmed it
-- meanwhile: nothing is removed), else 1; left the records left (-1 when
-- not counted); then the read: up to M records, oldest first, each
-- record's seq, the chats they belong to and each record's index in them.
--
-- A chat's records are numbered here, where they are read: after its last
-- acknowledged seq, in list order (commit order), so ids are the same on
-- every read until acknowledged, and a chat's count goes on whatever
-- happened to its state. The chat is the stored JSON's first
-- "conversation_id" value, still JSON-escaped: the fields before it (ms,
-- k, version) hold no string that could contain it, and inside the value
-- every '"' is escaped, so '","' ends it.
local acked, left = 1, -1
local n = tonumber(ARGV[1])
if n > 0 then
  if redis.call('LINDEX', KEYS[1], n - 1) ~= ARGV[2] then
    acked = 0
  else
    redis.call('LTRIM', KEYS[1], n, -1)
    if #ARGV >= 6 then
      redis.call('HSET', KEYS[2], unpack(ARGV, 5))
    end
  end
end
if ARGV[4] == '1' then
  left = redis.call('LLEN', KEYS[1])
end
local m = tonumber(ARGV[3])
if m == 0 or left == 0 then
  return {acked, left, {}, {}, {}, {}}
end
local raws = redis.call('LRANGE', KEYS[1], 0, m - 1)
if #raws == 0 then
  return {acked, left, {}, {}, {}, {}}
end
local chats, at, of = {}, {}, {}
for i, raw in ipairs(raws) do
  local c = string.match(raw, '"conversation_id":"(.-)","') or ''
  if not at[c] then
    chats[#chats + 1] = c
    at[c] = #chats
  end
  of[i] = at[c]
end
local lasts = redis.call('HMGET', KEYS[2], unpack(chats))
local next = {}
for j = 1, #chats do
  next[j] = tonumber(string.match(lasts[j] or '', '^%d+') or '0')
end
local seqs = {}
for i = 1, #raws do
  next[of[i]] = next[of[i]] + 1
  seqs[i] = next[of[i]]
end
return {acked, left, raws, seqs, chats, of}
