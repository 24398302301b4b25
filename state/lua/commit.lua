-- Apply one turn atomically, fenced by the lease and the state version.
-- KEYS[1] lease, KEYS[2] state hash, KEYS[3] pending list, KEYS[4] outbox
-- list, KEYS[5] the chat list zset (single node only; on a cluster it is
-- in another slot and the caller updates it beside this script)
-- ARGV[1] lease, ARGV[2] expected version, ARGV[3] "1" to store a blob or
-- "0" to delete the state, ARGV[4] blob, ARGV[5] state TTL (ms, 0 = none),
-- ARGV[6] pending entries consumed, ARGV[7] "1" to record the chat list's
-- fields (ARGV[8] preview, ARGV[9] activity ms, ARGV[10] paused-until ms)
-- in the state hash, ARGV[11] unix ms the state expires at ("0" for never;
-- kept in the hash so Begin needs no PTTL), ARGV[12] the chat's member in
-- the chat list, ARGV[13] how far (ms) the chat list's score may lag the
-- activity, or "" when there is no KEYS[5] (a cluster: the keys after
-- KEYS[4] are then the stream's), ARGV[14..] the stream's records
-- (stream.lua), then the outbox's JSON entries
-- Returns 0 on success, 1 when the lease moved, 2 when the version moved,
-- 3 when the turn was applied but the chat list's update failed.
--
-- The chat list's score of a busy chat moves only once its activity is
-- ARGV[13] past the score it has ("i" in the state hash): a chat taking
-- turns faster than that costs one ZADD per ARGV[13], not one a turn.
--
-- The expiry slides at every commit, but within 1% of the TTL (at most a
-- minute): a commit that would move it by less keeps the current one and
-- saves the PEXPIRE, so a chat's state may expire that much earlier than
-- TTL after its last turn.
--
-- The lease is checked where Begin wrote its holder's token, in the state
-- hash ("l", read with the version): whoever began on the chat since
-- replaced it. Only a chat without a state (none to hold a token) has its
-- lease key read (begin.lua).
local cur = redis.call('HMGET', KEYS[2], 'v', 'e', 'i', 'l')
local holder = cur[4]
if not cur[1] then
  holder = redis.call('GET', KEYS[1])
end
if holder ~= ARGV[1] then
  return 1
end
local version = tonumber(cur[1] or '0')
if version ~= tonumber(ARGV[2]) then
  return 2
end
local outbox = stream_append()

-- indexed is the chat list's update: nil when there is none to make,
-- else the score to give the chat.
local indexed = nil
if ARGV[7] == '1' and ARGV[13] ~= '' then
  local at = tonumber(ARGV[9])
  if ARGV[3] ~= '1' or at - tonumber(cur[3] or '0') >= tonumber(ARGV[13]) then
    indexed = ARGV[9]
  end
end

-- store writes the state, the chat list's fields and the expiry in one
-- HSET, then moves the key's expiry if it has to.
local function store()
  local fields = {'v', string.format('%d', version + 1), 'b', ARGV[4], 'l', ARGV[1]}
  if ARGV[7] == '1' then
    for _, f in ipairs({'p', ARGV[8], 'a', ARGV[9], 'u', ARGV[10]}) do
      fields[#fields + 1] = f
    end
  end
  if indexed then
    fields[#fields + 1], fields[#fields + 2] = 'i', indexed
  end
  local ttl, expires, e = tonumber(ARGV[5]), tonumber(ARGV[11]), tonumber(cur[2] or '-1')
  local expire = nil -- the command that moves the key's expiry, if any
  if ttl > 0 and not (e > 0 and expires - e < math.min(ttl / 100, 60000)) then
    fields[#fields + 1], fields[#fields + 2], expire = 'e', ARGV[11], 'PEXPIRE'
  elseif ttl == 0 and e ~= 0 then
    fields[#fields + 1], fields[#fields + 2], expire = 'e', '0', 'PERSIST'
  end
  redis.call('HSET', KEYS[2], unpack(fields))
  if expire == 'PEXPIRE' then
    redis.call('PEXPIRE', KEYS[2], ttl)
  elseif expire == 'PERSIST' then
    redis.call('PERSIST', KEYS[2])
  end
end

if ARGV[3] == '1' then
  store()
else
  redis.call('DEL', KEYS[2])
end
local consumed = tonumber(ARGV[6])
if consumed > 0 then
  redis.call('LTRIM', KEYS[3], consumed, -1)
end
if #ARGV >= outbox then
  redis.call('RPUSH', KEYS[4], unpack(ARGV, outbox))
end
if indexed then
  local res = redis.pcall('ZADD', KEYS[5], indexed, ARGV[12])
  if type(res) == 'table' and res.err then
    return 3
  end
end
return 0
