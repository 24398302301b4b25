-- Remove one dead letter and return its JSON (false when absent).
-- KEYS[1] index zset, KEYS[2] data hash, KEYS[3] counts hash
-- ARGV[1] id. The count field is recomputed from the JSON as deadletter.lua
-- does it.
local raw = redis.call('HGET', KEYS[2], ARGV[1])
if not raw then
  return false
end
local ok, d = pcall(cjson.decode, raw)
if ok and type(d) == 'table' then
  local f = string.match(tostring(d.chat or ''), '^[^:]*') .. '|' .. tostring(d.kind or '')
  if tonumber(redis.call('HINCRBY', KEYS[3], f, -1)) <= 0 then
    redis.call('HDEL', KEYS[3], f)
  end
end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[1])
return raw
