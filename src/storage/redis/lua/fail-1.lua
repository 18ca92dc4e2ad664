--[[
  fail: ends running attempts in failure.

  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  history maxAgeMs
  ARGV[2]  history maxCount
  ARGV[3..] quintuples (id, workerId, now, error JSON, retryAt | ""), one per task, in order

  Per task, only while workerId holds the lease: stores the error and counts the failed
  attempt. With retryAt the task becomes retrying in the delayed set (history "retrying");
  without, it is dead: dead-letter list, history "dead", key released, children settled.
  Returns one entry per task: "retrying", "dead", or "" when the lease was not held.
]]
--- @include "task"

RETENTION.maxAgeMs, RETENTION.maxCount = tonumber(ARGV[1]), tonumber(ARGV[2])

local out = {}
for i = 3, #ARGV, 5 do
  local t = owned(ARGV[i], ARGV[i + 1])
  if t then
    t.error = ARGV[i + 3]
    bump(P .. 'totals', 'failedAttempts', 1)
    out[#out + 1] = failTask(t, num(ARGV[i + 4]), tonumber(ARGV[i + 2]))
  else
    out[#out + 1] = ''
  end
end
return done(out)
