-- Remove the outbox entries whose JSON "id" is one of ARGV.
-- KEYS[1] outbox list
-- Returns how many entries were removed.
local done = {}
for i = 1, #ARGV do
  done[ARGV[i]] = true
end
local n = 0
for _, raw in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local ok, m = pcall(cjson.decode, raw)
  if ok and type(m) == 'table' and done[m.id] then
    redis.call('LREM', KEYS[1], 1, raw)
    done[m.id] = nil
    n = n + 1
  end
end
return n
