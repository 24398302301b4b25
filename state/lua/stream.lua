-- The conversation stream's share of the commit (commit.lua calls it once
-- the fences passed): number the commit's records after the chat's last
-- one and append them to each sink's list.
-- ARGV[14] the number of records R ("0": none; the outbox's entries then
-- start at ARGV[15]). With records: ARGV[15] the KEYS index of the seq
-- hash of the chat's stream unit (each sink's list follows it), ARGV[16]
-- the number of sinks S, ARGV[17] the commit time (unix ms), ARGV[18] one
-- flag a sink: "0" keep, "1" keep and note the chat's last seq in the seq
-- hash (the sink is behind), "2" full: do not keep (max_pending), ARGV[19]
-- unused (reserved), ARGV[20..19+R] the records' JSON without seq and id.
-- Returns the chat's new last seq (nil without records) and the ARGV index
-- of the first outbox entry.
--
-- The chat's last seq is "q" in the state hash (read with the version, so
-- free). Without a state (a new chat, after a reset or expiry) it is the
-- seq hash's entry for the chat ("<seq>:<ms>"), which the relay writes as
-- it delivers and the commit writes when the state goes or a sink is
-- behind (stream.go).
local function stream_append(q)
  local n = tonumber(ARGV[14])
  if n == 0 then
    return nil, 15
  end
  local k0, sinks, now, flags = tonumber(ARGV[15]), tonumber(ARGV[16]), ARGV[17], ARGV[18]
  local seq = tonumber(q or '')
  if not seq then
    local known = redis.call('HGET', KEYS[k0], ARGV[12])
    seq = tonumber(string.match(known or '0', '^%d+')) or 0
  end
  local recs = {}
  for i = 1, n do
    recs[i] = string.format('{"seq":%d,"ms":%s,', seq + i, now) .. string.sub(ARGV[19 + i], 2)
  end
  seq = seq + n
  local note = ARGV[3] ~= '1' -- the state, and "q" with it, is deleted
  for i = 1, sinks do
    local f = string.sub(flags, i, i)
    if f ~= '2' then
      redis.call('RPUSH', KEYS[k0 + i], unpack(recs))
    end
    note = note or f ~= '0'
  end
  if note then
    redis.call('HSET', KEYS[k0], ARGV[12], string.format('%d:%s', seq, now))
  end
  return string.format('%d', seq), 20 + n
end

