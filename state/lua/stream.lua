-- The conversation stream's share of the commit (commit.lua calls it once
-- the fences passed): append the commit's records to each kept sink's list.
-- ARGV[14] the number of records R ("0": none; the outbox's entries then
-- start at ARGV[15]). With records: ARGV[15] the KEYS index of the first
-- list, ARGV[16] the number of lists L (the sinks not full), ARGV[17..16+R]
-- the records as stored (JSON without seq and id: the relay numbers them,
-- state/streamread.lua).
-- Returns the ARGV index of the first outbox entry.
local function stream_append()
  local n = tonumber(ARGV[14])
  if n == 0 then
    return 15
  end
  local k0 = tonumber(ARGV[15])
  for i = 0, tonumber(ARGV[16]) - 1 do
    redis.call('RPUSH', KEYS[k0 + i], unpack(ARGV, 17, 16 + n))
  end
  return 17 + n
end

