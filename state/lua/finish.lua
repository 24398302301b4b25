-- End a worker's hold on a chat, removing the replies it delivered, and
-- when work remains, read the next turn's input as FinishNext wants it.
-- KEYS[1] lease, KEYS[2] pending list, KEYS[3] outbox list, KEYS[4] state
-- hash, KEYS[5] the chat's work zset (single node only; on a cluster it is
-- in another slot and the caller handles the mark around this script)
-- ARGV[1] lease, ARGV[2] lease TTL (ms), ARGV[3] unix ms at which the work
-- mark becomes due again, ARGV[4] the mark's member, ARGV[5] max pending
-- entries to read when work remains (0: read nothing), ARGV[6] the chat's
-- own send pace to keep (unix ms; "0": none to keep), ARGV[7] n, the
-- number of delivered outbox entries, ARGV[8..7+n] their ids,
-- ARGV[8+n..7+2n] the JSON each of them starts with as the gateway writes
-- it ('{"chat":"<chat>","id":"<id>",')
-- Returns -1 when the lease moved, 0 when the chat is idle (lease
-- released, mark cleared), else work remains (lease kept) and it returns
-- 1 (lease extended, mark re-hidden), or with ARGV[5] > 0 (lease and mark
-- as they are) {pending, outbox}.

-- removeDelivered drops the delivered entries and tells whether the
-- outbox is empty after them. They are the head of the outbox in order (a
-- turn delivers the leftovers it read, then its own replies, appended after
-- them), so one LPOP takes them, and one more entry: when that one is not
-- there the outbox is known to be empty without reading it again. Should
-- the head be anything else (another worker's record landed first, an entry
-- was rewritten), the entries go back and are removed one by one by id.
local function removeDelivered(key, n)
  local popped = redis.call('LPOP', key, n + 1)
  if not popped then
    return true
  end
  local prefix = #popped >= n
  for i = 1, n do
    local want = ARGV[7 + n + i]
    if not prefix or string.sub(popped[i], 1, #want) ~= want then
      prefix = false
      break
    end
  end
  if prefix then
    if #popped == n then
      return true
    end
    redis.call('LPUSH', key, popped[n + 1])
    return false
  end
  local back = {}
  for i = #popped, 1, -1 do
    back[#back + 1] = popped[i]
  end
  redis.call('LPUSH', key, unpack(back))
  local done = {}
  for i = 8, 7 + n do
    done[ARGV[i]] = true
  end
  for _, raw in ipairs(redis.call('LRANGE', key, 0, -1)) do
    local ok, m = pcall(cjson.decode, raw)
    if ok and type(m) == 'table' and done[m.id] then
      redis.call('LREM', key, 1, raw)
      done[m.id] = nil
    end
  end
  return false
end

-- Delivered replies go whoever holds the lease now: they reached the
-- channel, and leaving them would make the holder send them again. The
-- pace of those sends is kept with the chat's state, as long as there is
-- one (a state written just now for it is taken back: it would have no
-- expiry).
local n = tonumber(ARGV[7])
local emptied = n > 0 and removeDelivered(KEYS[3], n)
if ARGV[6] ~= '0' and redis.call('HSET', KEYS[4], 'r', ARGV[6]) == 1
    and redis.call('HLEN', KEYS[4]) == 1 then
  redis.call('DEL', KEYS[4])
end
local read = tonumber(ARGV[5])
if read > 0 then
  -- FinishNext: the lists the next turn reads tell whether work remains.
  -- With input only, the caller goes on at once with the next turn on the
  -- state it just committed (not read again), under a lease its renewal
  -- keeps alive all along: the lease is neither checked nor extended here
  -- (the next commit is fenced by it), and the work mark is left as it
  -- is. It is there (on a single node only Finish removes it, with the
  -- last input), so the chat is recovered should this worker die; should
  -- it come due while the turns go on, a replica that claims it cannot
  -- take the lease and leaves the chat for one more visibility timeout.
  -- That costs a busy chat one claim a visibility timeout instead of one
  -- ZADD, a lease check and a state read a turn. Replies left in the
  -- outbox are sent before any fence, and a holder has none left once it
  -- delivered its own: they are returned only to the lease's holder.
  local pending = redis.call('LRANGE', KEYS[2], 0, read - 1)
  local outbox = emptied and {} or redis.call('LRANGE', KEYS[3], 0, -1)
  if #outbox > 0 and redis.call('GET', KEYS[1]) ~= ARGV[1] then
    return -1
  end
  if #pending > 0 or #outbox > 0 then
    return {pending, outbox}
  end
end
if read == 0 and (redis.call('LLEN', KEYS[2]) > 0 or (not emptied and redis.call('LLEN', KEYS[3]) > 0)) then
  if redis.call('GET', KEYS[1]) ~= ARGV[1] then
    return -1
  end
  if KEYS[5] then
    redis.call('ZADD', KEYS[5], ARGV[3], ARGV[4])
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
-- Idle: release the lease, if it is still ours. GETDEL takes it and says
-- whose it was in one command; should it be another worker's (ours was
-- lost), it is put back at once, with a whole TTL: that can only delay the
-- chat's recovery, should that worker be dead, by one TTL.
local held = redis.call('GETDEL', KEYS[1])
if held ~= ARGV[1] then
  if held then
    redis.call('SET', KEYS[1], held, 'PX', ARGV[2])
  end
  return -1
end
if KEYS[5] then
  redis.call('ZREM', KEYS[5], ARGV[4])
end
return 0
