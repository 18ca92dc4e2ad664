--[[
  Task events (src/core/task-event.ts): what happened to tasks in this call, for the API's
  event stream. done() records the call's events as batches of at most TASK_EVENT_CHUNK:
  each batch gets the next number n of `tevseq`, is added to the `tevents` stream under id
  `<n>-0` (about TASK_EVENT_BUFFER batches kept, for readers that resume) and published on
  the `tevents` channel as "<n> <JSON array>" (live readers; one that sees n jump knows it
  missed a batch and reads it from the stream). Nothing is recorded while the deployment's
  events are off (EVENTS_OFF, read with the layout).
]]
--- @include "prefix"
--- @include "values"
--- @include "done"
--- @include "json-name"

local TASK_EVENTS = {}

-- Records one event of task `id`; `extra` is more JSON members (',"attempt":2') or nil.
local function taskEvent(kind, id, type, pool, now, extra)
  if EVENTS_OFF then return end
  TASK_EVENTS[#TASK_EVENTS + 1] = '{"kind":"' .. kind .. '","id":' .. name(id) .. ',"type":' ..
    name(type) .. ',"pool":' .. name(pool) .. ',"at":' .. text(now) .. (extra or '') .. '}'
end

-- Run by done(): the call's events, as batches.
flushTaskEvents = function()
  local n = #TASK_EVENTS
  if n == 0 then return end
  for from = 1, n, TASK_EVENT_CHUNK do
    local last = math.min(n, from + TASK_EVENT_CHUNK - 1)
    local batch = '[' .. table.concat(TASK_EVENTS, ',', from, last) .. ']'
    local seq = redis.call('INCR', P .. 'tevseq')
    -- pcall: a stream someone wrote ahead of the counter must never fail the transition.
    redis.pcall('XADD', P .. 'tevents', 'MAXLEN', '~', TASK_EVENT_BUFFER, seq .. '-0', 'e', batch)
    redis.call('PUBLISH', P .. 'tevents', seq .. ' ' .. batch)
  end
  TASK_EVENTS = {}
end
