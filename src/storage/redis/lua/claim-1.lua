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

  Returns one list per claim, in ARGV order, of the claimed tasks, each as its flat HGETALL
  field list (possibly empty).
]]
--- @include "task"

local function claim(now, pool, max, workerId, leaseUntil)
  local paused = redis.call('HMGET', P .. 'control', 'paused:*', 'paused:' .. pool)
  if paused[1] == '1' or paused[2] == '1' then return {} end
  local popped = redis.call('ZPOPMIN', P .. 'ready:' .. pool, max)
  local out = {}
  local claimSeq = redis.call('INCRBY', P .. 'seq', #popped / 2) - #popped / 2
  for i = 1, #popped, 2 do
    local id = string.sub(popped[i], 17)
    local k = tkey(id)
    -- Members of ready:<pool> are queued tasks; the check guards against a corrupted set.
    if redis.call('HGET', k, 'status') == 'queued' then
      redis.call('HINCRBY', k, 'attempt', 1)
      redis.call('HSET', k, 'status', 'running', 'startedAt', now, 'workerId', workerId,
        'claimSeq', claimSeq + (i + 1) / 2)
      redis.call('HDEL', k, 'progress')
      redis.call('ZADD', P .. 'leases', leaseUntil, id)
      out[#out + 1] = record(id)
    end
  end
  if #out > 0 then
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
