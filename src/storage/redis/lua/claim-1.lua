--[[
  claim: takes queued tasks under a lease (batched claim), for one or more pools at once.

  FLAGS allow-oom      (runs above maxmemory: a full Redis must not refuse it)
  KEYS[1]  key prefix `<name>:{<tag>}:` (derives ready:<pool>, leases, ...: includes/prefix.lua)
  ARGV     one or more claims of 5 entries each, applied in order:
    ARGV[i]      now (epoch ms)
    ARGV[i + 1]  pool
    ARGV[i + 2]  max (>= 1)
    ARGV[i + 3]  workerId
    ARGV[i + 4]  leaseMs

  One call serves the claims of several pools issued in the same tick (src/storage/redis/
  claims.ts), so an idle worker's backstop poll costs one command however many pools it has.
  Nothing is claimed for a pool while it or every pool (`*`) is paused. Highest priority
  first, FIFO among equals. Each task becomes running with attempt + 1, startedAt = now,
  progress cleared, the error of the previous attempt kept, and a lease until now + leaseMs.

  Returns one list per claim, in ARGV order, of the claimed tasks, each as the values of
  CLAIMED_FIELDS (nil for an absent field) with the id in place of status, the new attempt
  in place of the old, and the claim's token (its claimSeq, which every settle of this
  attempt must present) in place of progress: a claimed task is decoded by position
  (CLAIMED_FIELDS comes from src/storage/redis/claims.ts), which halves the reply and spares
  the worker one field-name string per value. The fields the claim itself sets (status,
  pool, startedAt, workerId, progress) are not sent back.
]]
--- @include "prefix"
--- @include "tkey"
--- @include "values"
--- @include "chunked"
--- @include "bump"
--- @include "pools"
--- @include "done"

-- CLAIMED_FIELDS are read before the task is marked running; the id, new attempt and token
-- then replace `status`, `attempt` and `progress` (cleared by the claim).
local STATUS, ATTEMPT, PROGRESS = CLAIMED_AT.status, CLAIMED_AT.attempt, CLAIMED_AT.progress

local function claim(now, pool, max, workerId, leaseUntil)
  local paused = redis.call('HMGET', P .. 'control', 'paused:*', 'paused:' .. pool)
  if paused[1] == '1' or paused[2] == '1' then return {} end
  -- ZRANGE + ZREM rather than ZPOPMIN: a popped score is formatted as text, which costs more
  -- than the second call.
  local ready = P .. 'ready:' .. pool
  local popped = redis.call('ZRANGE', ready, 0, max - 1)
  if #popped == 0 then return {} end
  callChunked('ZREM', ready, popped)
  local out, leases = {}, {}
  local claimSeq = redis.call('INCRBY', P .. 'seq', #popped) - #popped
  for i = 1, #popped do
    local id = string.sub(popped[i], SEQ_WIDTH + 1)
    local k = tkey(id)
    local v = redis.call('HMGET', k, unpack(CLAIMED_FIELDS))
    -- Members of ready:<pool> are queued tasks; the check guards against a corrupted set.
    if v[STATUS] == 'queued' then
      local attempt, token = tonumber(v[ATTEMPT]) + 1, text(claimSeq + i)
      redis.call('HSET', k, 'status', 'running', 'attempt', text(attempt), 'startedAt', now,
        'workerId', workerId, 'claimSeq', token)
      if v[PROGRESS] then redis.call('HDEL', k, 'progress') end
      leases[#leases + 1] = leaseUntil
      leases[#leases + 1] = id
      v[STATUS], v[ATTEMPT], v[PROGRESS] = id, attempt, token
      out[#out + 1] = v
    end
  end
  if #out > 0 then
    -- One ZADD for the batch: every redis.call from Lua has a fixed cost.
    callChunked('ZADD', P .. 'leases', leases)
    bump(P .. 'counts', 'queued', -#out)
    bump(P .. 'counts', 'running', #out)
    bump(P .. 'running', pool, #out)
    usePool(pool)
  end
  return out
end

local replies = {}
for i = 1, #ARGV, 5 do
  replies[#replies + 1] = claim(ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2]), ARGV[i + 3],
    text(tonumber(ARGV[i]) + tonumber(ARGV[i + 4])))
end
return done(replies)
