-- Extend each lease the caller still holds.
-- KEYS[i] the lease of chat i; ARGV[1] lease TTL (ms), ARGV[1+i] the token
-- the caller holds for KEYS[i]
-- Returns, per key, 1 when extended, 0 when the lease moved.
--
-- One SET XX GET extends a lease and says whose it was. Should it be
-- another worker's (ours expired and was taken), it is put back at once,
-- with a whole TTL: that can only delay the chat's recovery, should that
-- worker be dead, by one TTL (as Finish does).
local out = {}
for i, key in ipairs(KEYS) do
  local token = ARGV[1 + i]
  local held = redis.call('SET', key, token, 'XX', 'GET', 'PX', ARGV[1])
  if held == token then
    out[i] = 1
  else
    if held then
      redis.call('SET', key, held, 'PX', ARGV[1])
    end
    out[i] = 0
  end
end
return out
