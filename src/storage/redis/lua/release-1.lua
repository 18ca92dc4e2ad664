--[[
  release: hands back claimed tasks that never started or whose handlers were stopped
  (graceful shutdown, a lease that ran out on the worker's own clock).

  FLAGS allow-oom      (runs above maxmemory: a full Redis must not refuse it)
  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  now (epoch ms)
  ARGV[2]  workerId
  ARGV[3..] triples (task id, claim token, its log lines not stored yet | "":
           includes/task-logs.lua)

  Each task still held by that claim keeps its log lines and is queued again at the front of its priority (the
  position it had before it ran), with its attempt count restored, startedAt cleared and
  the claim's token void. Returns how many were released.
]]
--- @include "owned"
--- @include "requeue"
--- @include "task-logs"
--- @include "done"

local now = tonumber(ARGV[1])
local n = 0
for i = 3, #ARGV, 3 do
  local t = owned(ARGV[i], ARGV[2], ARGV[i + 1])
  if t then
    appendLogs(t.id, ARGV[i + 1], ARGV[i + 2])
    requeue(t, now, 'requeued')
    n = n + 1
  end
end
return done(n)
