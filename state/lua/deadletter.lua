-- Add a dead letter, after dropping those past retention.
-- KEYS[1] index zset (all scores 0; ids sort by time), KEYS[2] data hash
-- (id -> JSON), KEYS[3] counts hash ("<channel>|<kind>" -> n)
-- ARGV[1] cutoff id: ids below it are past retention
-- ARGV[2] new id ("" only trims), ARGV[3] its JSON, ARGV[4] its count field
-- Returns the number of entries dropped for age.
local function forget(id)
  local raw = redis.call('HGET', KEYS[2], id)
  if raw then
    local ok, d = pcall(cjson.decode, raw)
    if ok and type(d) == 'table' then
      local f = string.match(tostring(d.chat or ''), '^[^:]*') .. '|' .. tostring(d.kind or '')
      if tonumber(redis.call('HINCRBY', KEYS[3], f, -1)) <= 0 then
        redis.call('HDEL', KEYS[3], f)
      end
    end
    redis.call('HDEL', KEYS[2], id)
  end
  redis.call('ZREM', KEYS[1], id)
end
local old = redis.call('ZRANGEBYLEX', KEYS[1], '-', '(' .. ARGV[1], 'LIMIT', 0, 1000)
for _, id in ipairs(old) do
  forget(id)
end
if ARGV[2] ~= '' then
  redis.call('ZADD', KEYS[1], 0, ARGV[2])
  redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
  redis.call('HINCRBY', KEYS[3], ARGV[4], 1)
end
return #old
