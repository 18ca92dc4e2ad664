--[[
  A task's log: appending an attempt's lines within the caps (the memory store's
  memory/task-logs.ts does the same). The lines are `logs:<id>`; beside them in the task's
  hash, lb (their bytes), lf (lines dropped from the front: the index of the list's first
  line among all kept), lw (lines workers dropped before handing them over) and lm
  ("<claim token>:<number of its next line>": what the claim already stored). Deleted with
  the task's row (retention.lua).
]]
--- @include "prefix"
--- @include "tkey"
--- @include "values"
--- @include "chunked"

-- Appends the lines of `batch` ("<from>\n<line JSON>\n<line JSON>…", "" for none:
-- src/storage/redis/task-logs.ts) that claim `token` has not stored yet, so a batch sent
-- again after a lost reply adds nothing. Then drops the oldest lines until at most
-- MAX_TASK_LOG_LINES and MAX_TASK_LOG_BYTES are kept: one LPOP per line, so the byte count
-- stays exact (bounded: never more pops than lines held). The caller checked the claim.
local function appendLogs(id, token, batch)
  if batch == '' then return end
  local k = tkey(id)
  local v = redis.call('HMGET', k, 'lb', 'lf', 'lw', 'lm')
  local bytes, first, lost = num(v[1]) or 0, num(v[2]) or 0, num(v[3]) or 0
  local expect = 1
  if v[4] then
    local claim, n = string.match(v[4], '^(.*):(%d+)$')
    if claim == token then expect = tonumber(n) end
  end
  local pos = string.find(batch, '\n', 1, true)
  local from = tonumber(string.sub(batch, 1, pos - 1))
  if from > expect then lost = lost + from - expect end
  local lines, seq = {}, from
  while pos do
    local stop = string.find(batch, '\n', pos + 1, true)
    if seq >= expect then
      local line = string.sub(batch, pos + 1, (stop or #batch + 1) - 1)
      lines[#lines + 1] = line
      bytes = bytes + #line
    end
    seq = seq + 1
    pos = stop
  end
  if #lines == 0 then return end
  local list = P .. 'logs:' .. id
  callChunked('RPUSH', list, lines)
  local len = redis.call('LLEN', list)
  while len > MAX_TASK_LOG_LINES or (bytes > MAX_TASK_LOG_BYTES and len > 0) do
    bytes = bytes - #redis.call('LPOP', list)
    first = first + 1
    len = len - 1
  end
  redis.call('HSET', k, 'lb', text(bytes), 'lf', text(first), 'lw', text(lost), 'lm',
    token .. ':' .. text(seq))
end
