--[[
  release: hands back claimed tasks that never started or whose handlers were stopped
  (graceful shutdown, a lease that ran out on the worker's own clock).

  FLAGS allow-oom      (runs above maxmemory: a full Redis must not refuse it)
  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  now (epoch ms)
  ARGV[2]  workerId
  ARGV[3..] pairs (task id, claim token)

  Each task still held by that claim is queued again at the front of its priority (the
  position it had before it ran), with its attempt count restored, startedAt cleared and
  the claim's token void. Returns how many were released.
]]
--- @include "owned"
--- @include "requeue"
--- @include "done"

local now = tonumber(ARGV[1])
local n = 0
for i = 3, #ARGV, 2 do
  local t = owned(ARGV[i], ARGV[2], ARGV[i + 1])
  if t then
    requeue(t, now, 'requeued')
    n = n + 1
  end
end
return done(n)
