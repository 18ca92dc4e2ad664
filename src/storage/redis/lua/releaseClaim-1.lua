--[[
  releaseClaim: hands back what a claim took when its reply never reached the worker (the
  connection dropped, the call timed out). Without it those tasks would sit `running` under
  a worker that does not know them until their lease expired.

  FLAGS allow-oom      (runs above maxmemory: a full Redis must not refuse it)
  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  now (epoch ms)
  ARGV[2]  pool
  ARGV[3]  workerId
  ARGV[4]  the claim's now (its startedAt)
  ARGV[5]  the claim's leaseMs
  ARGV[6..] ids the worker runs: never released here

  The claim gave each task the lease score now + leaseMs, and the worker never renewed
  them (it does not know them), so they are found by that exact score: running, in `pool`,
  claimed by workerId at that startedAt. They go back to the front of their queue with the
  attempt restored (the worker never started them). Returns how many were released.
]]
--- @include "prefix"
--- @include "values"
--- @include "load"
--- @include "requeue"
--- @include "done"

local now, pool, workerId, claimedAt = tonumber(ARGV[1]), ARGV[2], ARGV[3], ARGV[4]
local score = text(tonumber(claimedAt) + tonumber(ARGV[5]))
local keep = {}
for i = 6, #ARGV do keep[ARGV[i]] = true end
local n = 0
for _, id in ipairs(redis.call('ZRANGEBYSCORE', P .. 'leases', score, score, 'LIMIT', 0, 10000)) do
  if not keep[id] then
    local t = load(id, RUNNING_FIELDS)
    if t and t.status == 'running' and t.workerId == workerId and t.pool == pool and
      t.startedAt == tonumber(claimedAt) then
      requeue(t, now, 'requeued')
      n = n + 1
    end
  end
end
return done(n)
