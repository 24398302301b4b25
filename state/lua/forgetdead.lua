-- forget removes dead letter id from the keys every dead-letter script
-- takes (KEYS[1] index zset, KEYS[2] data hash, KEYS[3] counts hash) and
-- lowers its "<channel>|<kind>" count, recomputed from its JSON. It returns
-- the JSON, or false when the id is absent. Prepended to the scripts that
-- use it.
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
  return raw
end

