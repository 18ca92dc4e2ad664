--[[
  complete: ends running attempts in success.

  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  history maxAgeMs (row and attempt retention)
  ARGV[2]  history maxCount
  ARGV[3..] quadruples (id, workerId, now, result JSON), one per task, applied in order

  Per task, only while workerId holds the lease: stores the result, records the attempt
  (history, duration sample, totals.succeeded), releases the key, settles workflow children
  (conditions met -> queued or scheduled; broken -> cancelled, transitively) and applies
  row retention. Returns one integer per task: 1 completed, 0 lease not held (no change).
]]
--- @include "task"

RETENTION.maxAgeMs, RETENTION.maxCount = tonumber(ARGV[1]), tonumber(ARGV[2])

local out = {}
for i = 3, #ARGV, 4 do
  local t = owned(ARGV[i], ARGV[i + 1])
  if t then
    local now = tonumber(ARGV[i + 2])
    recordAttempt(t, 'succeeded', nil, now)
    finish(t, 'succeeded', now, {'result', ARGV[i + 3]})
    bump(P .. 'totals', 'succeeded', 1)
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
return done(out)
