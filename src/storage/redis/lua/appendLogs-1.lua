--[[
  appendLogs: stores log lines of running attempts (a worker's periodic flush), and the
  lines an attempt's handler logged before a cancel stopped it.

  No allow-oom: a full Redis refuses this call, and the worker keeps the lines for the
  attempt's settle (which runs above maxmemory).
  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  now (epoch ms; the lines carry their own times)
  ARGV[2..] quadruples, one per attempt: task id, workerId, claim token, lines ("<from>\n
           <line JSON>\n…", see includes/task-logs.lua)

  Per attempt, only while that claim holds the task (running, claimed by workerId under
  the token) or the task was cancelled while that claim ran it: appends the lines it does
  not hold yet. Returns one integer per attempt: 1 appended (or already held), 0 not its
  claim's (nothing changed).
]]
--- @include "tkey"
--- @include "task-logs"

local out = {}
for i = 2, #ARGV, 4 do
  local id, workerId, token = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local v = redis.call('HMGET', tkey(id), 'status', 'workerId', 'claimSeq')
  if (v[1] == 'running' or v[1] == 'cancelled') and v[2] == workerId and v[3] == token then
    appendLogs(id, token, ARGV[i + 3])
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
return out
