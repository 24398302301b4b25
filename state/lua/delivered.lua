-- Remove the first outbox entry whose JSON "id" equals ARGV[1].
-- KEYS[1] outbox list
-- Returns 1 when an entry was removed, 0 when none matched.
for _, raw in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local ok, m = pcall(cjson.decode, raw)
  if ok and type(m) == 'table' and m.id == ARGV[1] then
    redis.call('LREM', KEYS[1], 1, raw)
    return 1
  end
end
return 0
