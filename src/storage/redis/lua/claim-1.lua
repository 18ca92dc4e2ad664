--[[
  claim: takes up to `max` queued tasks of one pool under a lease (batched claim).

  KEYS[1]  key prefix `<name>:{<tag>}:` (includes/task.lua derives ready:<pool>, leases, ...)
  ARGV[1]  now (epoch ms)
  ARGV[2]  pool
  ARGV[3]  max (>= 1)
  ARGV[4]  workerId
  ARGV[5]  leaseMs

  Nothing is claimed while the pool or every pool (`*`) is paused. Highest priority first,
  FIFO among equals. Each task becomes running with attempt + 1, startedAt = now, progress
  cleared, the error of the previous attempt kept, and a lease until now + leaseMs.

  Returns a list of claimed tasks, each as its flat HGETALL field list (possibly empty).
]]
--- @include "task"

local pool, max = ARGV[2], tonumber(ARGV[3])
local workerId, leaseUntil = ARGV[4], tonumber(ARGV[1]) + tonumber(ARGV[5])

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
    redis.call('HSET', k, 'status', 'running', 'startedAt', ARGV[1], 'workerId', workerId,
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
return done(out)
