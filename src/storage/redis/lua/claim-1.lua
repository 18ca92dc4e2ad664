--[[
  claim: takes queued tasks under a lease (batched claim), for one or more pools at once.

  KEYS[1]  key prefix `<name>:{<tag>}:` (includes/task.lua derives ready:<pool>, leases, ...)
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
  CLAIMED_FIELDS in that order (nil for an absent field): a claimed task is decoded by
  position (src/storage/redis/claims.ts keeps the same list), which halves the reply and
  spares the worker one field-name string per value.
]]
--- @include "task"

-- Keep in this order: src/storage/redis/claims.ts decodes by position.
local CLAIMED_FIELDS = {'id', 'type', 'status', 'pool', 'priority', 'payload', 'attempt',
  'maxRetries', 'progress', 'result', 'error', 'runAt', 'startedAt', 'finishedAt', 'key',
  'cancelReason', 'workerId', 'body'}

local function claim(now, pool, max, workerId, leaseUntil)
  local paused = redis.call('HMGET', P .. 'control', 'paused:*', 'paused:' .. pool)
  if paused[1] == '1' or paused[2] == '1' then return {} end
  local popped = redis.call('ZPOPMIN', P .. 'ready:' .. pool, max)
  if #popped == 0 then return {} end
  local out, leases = {}, {}
  local claimSeq = redis.call('INCRBY', P .. 'seq', #popped / 2) - #popped / 2
  for i = 1, #popped, 2 do
    local id = string.sub(popped[i], 17)
    local k = tkey(id)
    -- Members of ready:<pool> are queued tasks; the check guards against a corrupted set.
    local v = redis.call('HMGET', k, 'status', 'attempt', 'progress')
    if v[1] == 'queued' then
      redis.call('HSET', k, 'status', 'running', 'attempt', tonumber(v[2]) + 1, 'startedAt', now,
        'workerId', workerId, 'claimSeq', claimSeq + (i + 1) / 2)
      if v[3] then redis.call('HDEL', k, 'progress') end
      leases[#leases + 1] = leaseUntil
      leases[#leases + 1] = id
      out[#out + 1] = redis.call('HMGET', k, unpack(CLAIMED_FIELDS))
    end
  end
  if #out > 0 then
    -- One ZADD for the batch: every redis.call from Lua has a fixed cost.
    redis.call('ZADD', P .. 'leases', unpack(leases))
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
    tonumber(ARGV[i]) + tonumber(ARGV[i + 4]))
end
return done(replies)
