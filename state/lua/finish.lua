-- End a worker's hold on a chat.
-- KEYS[1] lease, KEYS[2] pending list, KEYS[3] outbox list
-- ARGV[1] lease, ARGV[2] lease TTL (ms)
-- Returns -1 when the lease moved, 1 when work remains (lease kept and
-- extended), 0 when the chat is idle (lease released).
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return -1
end
if redis.call('LLEN', KEYS[2]) > 0 or redis.call('LLEN', KEYS[3]) > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
redis.call('DEL', KEYS[1])
return 0
