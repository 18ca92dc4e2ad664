--[[
  fail: ends running attempts in failure.

  FLAGS allow-oom      (runs above maxmemory: a full Redis must not refuse it)
  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  history maxAgeMs
  ARGV[2]  history maxCount
  ARGV[3..] septuples (id, workerId, claim token, now, error JSON, retryAt | "", log lines
           not stored yet | "": includes/task-logs.lua), one per task, in order

  Per task, only while workerId holds the lease of that claim: appends its log lines,
  stores the error and counts the failed attempt. With retryAt the task becomes retrying in the delayed set (history "retrying");
  without, it is dead: dead-letter list, history "dead", key released, children settled.
  Returns one entry per task: "retrying", "dead", or "" when the lease was not held. A call
  retried after its first reply was lost gets the outcome that first call stored.
]]
--- @include "tkey"
--- @include "values"
--- @include "bump"
--- @include "owned"
--- @include "fail-task"
--- @include "task-logs"
--- @include "retention"
--- @include "done"

RETENTION.maxAgeMs, RETENTION.maxCount = tonumber(ARGV[1]), tonumber(ARGV[2])

local out = {}
-- What an earlier call of this claim stored, if one did (the token stays until the next
-- claim, a recovery or a resubmit).
local SETTLED = {retrying = 'retrying', queued = 'retrying', dead = 'dead'}

for i = 3, #ARGV, 7 do
  local t = owned(ARGV[i], ARGV[i + 1], ARGV[i + 2])
  if t then
    appendLogs(t.id, ARGV[i + 2], ARGV[i + 6])
    t.error = ARGV[i + 4]
    bump(P .. 'totals', 'failedAttempts', 1)
    out[#out + 1] = failTask(t, num(ARGV[i + 5]), tonumber(ARGV[i + 3]))
  else
    local v = redis.call('HMGET', tkey(ARGV[i]), 'status', 'claimSeq')
    out[#out + 1] = v[2] == ARGV[i + 2] and SETTLED[v[1]] or ''
  end
end
return done(out)
