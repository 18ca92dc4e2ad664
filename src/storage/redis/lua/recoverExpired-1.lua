--[[
  recoverExpired: returns running tasks whose lease expired (their owner died) to work.

  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  now (epoch ms)
  ARGV[2]  limit
  ARGV[3]  history maxAgeMs
  ARGV[4]  history maxCount

  A lease has expired when leaseUntil < now. Expired tasks are taken in the order they were
  claimed. The lost attempt counts as a failure (error "lease expired (worker <id> lost)",
  totals.failedAttempts): with attempts left the task is queued again (history "retrying"),
  else it is dead (history "dead", dead-letter list, children settled).
  Returns how many were recovered.
]]
--- @include "task"

local now, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
RETENTION.maxAgeMs, RETENTION.maxCount = tonumber(ARGV[3]), tonumber(ARGV[4])

-- Scan a bounded window of expired leases, then keep the earliest claimed.
local ids = redis.call('ZRANGEBYSCORE', P .. 'leases', '-inf', '(' .. ARGV[1], 'LIMIT', 0,
  math.max(limit, 1000))
local expired = {}
for _, id in ipairs(ids) do
  local t = load(id)
  if t and t.status == 'running' then
    t.claimSeq = tonumber(redis.call('HGET', tkey(id), 'claimSeq')) or 0
    expired[#expired + 1] = t
  else
    redis.call('ZREM', P .. 'leases', id)
  end
end
table.sort(expired, function(a, b) return a.claimSeq < b.claimSeq end)

local n = 0
for i = 1, math.min(limit, #expired) do
  local t = expired[i]
  t.error = cjson.encode({message = 'lease expired (worker ' .. (t.workerId or '') .. ' lost)'})
  bump(P .. 'totals', 'failedAttempts', 1)
  if t.attempt >= t.maxRetries + 1 then
    failTask(t, nil, now)
  else
    recordAttempt(t, 'retrying', t.error, now)
    move(t, 'queued', now, {'error', t.error})
  end
  n = n + 1
end
return done(n)
