-- Delete a chat's state, first noting its last stream seq ("q") in the
-- unit's seq hash, so the chat's next records go on from it.
-- KEYS[1] state hash, KEYS[2] the unit's seq hash
-- ARGV[1] the chat's member, ARGV[2] now (unix ms)
local q = redis.call('HGET', KEYS[1], 'q')
if q then
  redis.call('HSET', KEYS[2], ARGV[1], q .. ':' .. ARGV[2])
end
return redis.call('DEL', KEYS[1])
