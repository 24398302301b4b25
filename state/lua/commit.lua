-- Apply one turn atomically, fenced by the lease and the state version.
-- KEYS[1] lease, KEYS[2] state hash, KEYS[3] pending list, KEYS[4] outbox list
-- ARGV[1] lease, ARGV[2] expected version, ARGV[3] "1" to store a blob or
-- "0" to delete the state, ARGV[4] blob, ARGV[5] state TTL (ms, 0 = none),
-- ARGV[6] pending entries consumed, ARGV[7] "1" to record the chat list's
-- fields (ARGV[8] preview, ARGV[9] activity ms, ARGV[10] paused-until ms)
-- in the state hash, ARGV[11] unix ms the state expires at ("0" for never;
-- kept in the hash so Begin needs no PTTL), ARGV[12..] outbox JSON entries
-- Returns 0 on success, 1 when the lease moved, 2 when the version moved.
--
-- The expiry slides at every commit, but within 1% of the TTL (at most a
-- minute): a commit that would move it by less keeps the current one and
-- saves the PEXPIRE, so a chat's state may expire that much earlier than
-- TTL after its last turn. "e" is only ever a lower bound of the key's
-- real expiry (an older replica's commit extends the key without it).
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 1
end
local cur = redis.call('HMGET', KEYS[2], 'v', 'e')
local version = tonumber(cur[1] or '0')
if version ~= tonumber(ARGV[2]) then
  return 2
end

-- store writes the state, the chat list's fields and the expiry in one
-- HSET, then moves the key's expiry if it has to.
local function store()
  local fields = {'v', string.format('%d', version + 1), 'b', ARGV[4]}
  if ARGV[7] == '1' then
    for _, f in ipairs({'p', ARGV[8], 'a', ARGV[9], 'u', ARGV[10]}) do
      fields[#fields + 1] = f
    end
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
if #ARGV >= 12 then
  redis.call('RPUSH', KEYS[4], unpack(ARGV, 12))
end
return 0
