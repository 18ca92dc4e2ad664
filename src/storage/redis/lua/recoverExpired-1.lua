--[[
  recoverExpired: puts running tasks whose lease expired (their worker was lost) back to
  work, continues workflow cascades an earlier call left unfinished, and forgets flow keys
  idle for a day (includes/flow-sweep.lua, at most 100 a call).

  FLAGS allow-oom      (runs above maxmemory: a full Redis must not refuse it)
  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  now (epoch ms)
  ARGV[2]  limit (expired leases per call)
  ARGV[3]  history maxAgeMs
  ARGV[4]  history maxCount

  A lease has expired when leaseUntil < now. Expired tasks are taken in the order they were
  claimed. A lost worker is not the task's failure: the attempt is recorded in history as
  `stalled`, `stalls` grows by one, totals.stalled too, and the task goes back to the front
  of its queue with its attempt number restored (no retry spent). Past `maxStalls` (in the
  task's body, else DEFAULT_MAX_STALLS) the task is dead instead: history "dead", the dead-letter list, children
  settled, and an error that says it kept losing its worker.

  Returns {recovered, pending}: how many leases were recovered, and 1 when deferred
  cascades remain (the caller runs this again soon), else 0.
]]
--- @include "prefix"
--- @include "tkey"
--- @include "values"
--- @include "bump"
--- @include "load"
--- @include "requeue"
--- @include "attempts"
--- @include "finish"
--- @include "fail-task"
--- @include "retention"
--- @include "done"
--- @include "flow-sweep"

local now, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
RETENTION.maxAgeMs, RETENTION.maxCount = tonumber(ARGV[3]), tonumber(ARGV[4])

-- Scan a bounded window of expired leases, then keep the earliest claimed.
local ids = redis.call('ZRANGEBYSCORE', P .. 'leases', '-inf', '(' .. ARGV[1], 'LIMIT', 0,
  math.max(limit, 1000))
local expired = {}
for _, id in ipairs(ids) do
  local t = load(id)
  if t and t.status == 'running' then
    expired[#expired + 1] = t
  else
    redis.call('ZREM', P .. 'leases', id)
  end
end
table.sort(expired, function(a, b) return tonumber(a.claimSeq or 0) < tonumber(b.claimSeq or 0) end)

local n = 0
for i = 1, math.min(limit, #expired) do
  local t = expired[i]
  local k = tkey(t.id)
  local v = redis.call('HMGET', k, 'stalls', 'body')
  local stalls = (tonumber(v[1]) or 0) + 1
  local maxStalls = tonumber(bodyTable(v[2]).maxStalls) or DEFAULT_MAX_STALLS
  local lost = 'lease expired (worker ' .. (t.workerId or '') .. ' lost)'
  bump(P .. 'totals', 'stalled', 1)
  if stalls > maxStalls then
    t.error = cjson.encode({message = lost .. '; the task stalled ' .. stalls ..
      ' times (maxStalls ' .. maxStalls .. '), so it is dead: it may be killing its workers'})
    redis.call('HSET', k, 'stalls', text(stalls))
    redis.call('HDEL', k, 'claimSeq')
    failTask(t, nil, now)
  else
    recordAttempt(t, 'stalled', cjson.encode({message = lost}), now)
    requeue(t, now, 'stalled', {'stalls', text(stalls)})
  end
  n = n + 1
end

if redis.call('EXISTS', P .. 'cascades') == 1 then continueCascades(now, 100) end
flowSweep(now, 100)
local pending = (cascadeHead <= #cascadeQueue or redis.call('EXISTS', P .. 'cascades') == 1)
return done({n, pending and 1 or 0})
