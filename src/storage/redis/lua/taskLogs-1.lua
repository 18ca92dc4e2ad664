--[[
  taskLogs: a page of a task's log lines, oldest first (see includes/task-logs.lua).

  FLAGS allow-oom      (a read: a full Redis still answers it; as a function, a script
                       without flags would be refused there as a possible writer)
  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  task id
  ARGV[2]  cursor: the index, among all lines the task kept, to start at (lines dropped
           from the front since are skipped)
  ARGV[3]  limit: at most this many lines
  ARGV[4]  attempt: only its lines, or "" for every line

  Returns {0} for an unknown task, else {1, dropped, next, line JSON, ...}; next is the
  cursor of the page after, or "" when none follows. Bounded: reads at most the lines kept
  (MAX_TASK_LOG_LINES).
]]
--- @include "prefix"
--- @include "tkey"
--- @include "values"

local id, limit, attempt = ARGV[1], tonumber(ARGV[3]), ARGV[4]
local v = redis.call('HMGET', tkey(id), 'status', 'lf', 'lw')
if not v[1] then return {0} end
local first = num(v[2]) or 0
local from = math.max(0, tonumber(ARGV[2]) - first)
local list = P .. 'logs:' .. id
local out = {1, text(first + (num(v[3]) or 0)), ''}
if attempt == '' then
  local lines = redis.call('LRANGE', list, text(from), text(from + limit))
  for i = 1, math.min(#lines, limit) do out[#out + 1] = lines[i] end
  if #lines > limit then out[3] = text(first + from + limit) end
  return out
end
-- Lines are JSON with `at` then `attempt` first (core/task-log.ts logLineJson).
local n = 0
for i, line in ipairs(redis.call('LRANGE', list, text(from), '-1')) do
  if string.match(line, '^{"at":[^,]*,"attempt":(%d+),') == attempt then
    if n == limit then
      out[3] = text(first + from + i - 1)
      break
    end
    n = n + 1
    out[#out + 1] = line
  end
end
return out
