-- Take (or keep) the chat's lease and read everything a turn needs.
-- KEYS[1] lease, KEYS[2] state hash, KEYS[3] pending list, KEYS[4] outbox list
-- ARGV[1] lease the caller holds ("" for none), ARGV[2] fresh token,
-- ARGV[3] lease TTL (ms), ARGV[4] max pending entries to return
-- Returns the lease's PTTL (an integer) when another worker holds it, else
-- {token, version or "", blob or "", expiry, pending, outbox, pace}: expiry
-- is the state's "e" field (unix ms it expires at, "0" for never) or, for a
-- state written before that field existed, its PTTL; pace is its "r" field
-- (the chat's own send pace, unix ms, "" for none).
--
-- One SET NX GET takes a free lease (under the caller's token when it held
-- one that expired unclaimed) and reads the holder of a taken one. A lease
-- the caller still holds is not extended here: Finish extends it when it
-- keeps the chat, and the turn's renewal keeps it alive meanwhile.
--
-- The holder's token is also written into the state hash ("l"), where
-- Commit checks it with the version in one read: a worker whose lease
-- expired cannot commit once another has begun (doc.go). A chat without
-- a state gets none (the hash would have no expiry); its commit checks the
-- lease itself.
local token = ARGV[1]
if token == '' then
  token = ARGV[2]
end
local held = redis.call('SET', KEYS[1], token, 'NX', 'GET', 'PX', ARGV[3])
if held and (ARGV[1] == '' or held ~= ARGV[1]) then
  return redis.call('PTTL', KEYS[1])
end
local st = redis.call('HMGET', KEYS[2], 'v', 'b', 'e', 'r', 'l')
if st[1] and st[5] ~= token then
  redis.call('HSET', KEYS[2], 'l', token)
end
local expiry = st[3]
if st[1] and not expiry then
  expiry = redis.call('PTTL', KEYS[2])
end
return {
  token,
  st[1] or '',
  st[2] or '',
  expiry or '0',
  redis.call('LRANGE', KEYS[3], 0, tonumber(ARGV[4]) - 1),
  redis.call('LRANGE', KEYS[4], 0, -1),
  st[4] or '',
}
