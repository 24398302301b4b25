-- End a worker's hold on a chat, removing the replies it delivered.
-- KEYS[1] lease, KEYS[2] pending list, KEYS[3] outbox list,
-- KEYS[4] the chat's work zset (single node only; on a cluster it is in
-- another slot and the caller handles the mark around this script)
-- ARGV[1] lease, ARGV[2] lease TTL (ms), ARGV[3] unix ms at which the work
-- mark becomes due again, ARGV[4] the mark's member, ARGV[5..] ids of
-- delivered outbox entries
-- Returns -1 when the lease moved, 1 when work remains (lease kept and
-- extended, mark re-hidden), 0 when the chat is idle (lease released, mark
-- cleared).
if #ARGV > 4 then
  -- Delivered replies go whoever holds the lease now: they reached the
  -- channel, and leaving them would make the holder send them again.
  local done = {}
  for i = 5, #ARGV do
    done[ARGV[i]] = true
  end
  for _, raw in ipairs(redis.call('LRANGE', KEYS[3], 0, -1)) do
    local ok, m = pcall(cjson.decode, raw)
    if ok and type(m) == 'table' and done[m.id] then
      redis.call('LREM', KEYS[3], 1, raw)
      done[m.id] = nil
    end
  end
end
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return -1
end
if redis.call('LLEN', KEYS[2]) > 0 or redis.call('LLEN', KEYS[3]) > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  if KEYS[4] then
    redis.call('ZADD', KEYS[4], ARGV[3], ARGV[4])
  end
  return 1
end
redis.call('DEL', KEYS[1])
if KEYS[4] then
  redis.call('ZREM', KEYS[4], ARGV[4])
end
return 0
