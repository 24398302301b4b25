-- Remove one dead letter and return its JSON (false when absent).
-- KEYS[1] index zset, KEYS[2] data hash, KEYS[3] counts hash
-- ARGV[1] id. forget: forgetdead.lua, prepended.
return forget(ARGV[1])
