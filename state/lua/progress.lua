-- Note how many parts of a split outbox entry the platform took.
-- KEYS[1] outbox list
-- ARGV[1] the entry's id, ARGV[2] parts taken
-- Returns 1 when the entry was found, else 0.
for i, raw in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local ok, m = pcall(cjson.decode, raw)
  if ok and type(m) == 'table' and m.id == ARGV[1] then
    m.sent = tonumber(ARGV[2])
    redis.call('LSET', KEYS[1], i - 1, cjson.encode(m))
    return 1
  end
end
return 0
