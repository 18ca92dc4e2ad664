--[[
  Task events (src/core/task-event.ts): what happened to tasks in this call, for the API's
  event stream. done() records the call's events as batches of at most TASK_EVENT_CHUNK:
  each batch gets the next number n of `tevseq` and becomes entry `<n>-0` of the `tevents`
  stream (about TASK_EVENT_BUFFER batches kept), and n is published on the `tevents` channel;
  readers take the entries from the stream (src/storage/redis/task-events.ts), so a lost
  message costs nothing but a later read.

  A batch is one field `e`: each event's values joined by "|" (ids, types and pools are
  names, which never hold one), events separated by "|\n|", built with one table.concat: no
  JSON and no string per event here, which would cost more than the rest of a claim. An
  event is kind|id|type|pool|at, then its kind's own: created status; started, stalled,
  requeued, succeeded, dead, cancelled, expired attempt; retrying attempt|runAt; progress
  progress (src/storage/redis/task-events.ts decodes them). A kind, type, pool or at equal to
  the previous event's in the same batch is left empty (never empty otherwise; layout 4), and
  an event whose values all repeat the previous one's is its id alone, without a "|" (layout
  5): a batch of one submit's or one claim's events then costs little more than their ids.
  Nothing is recorded while the deployment's events are off (EVENTS_OFF, read with the
  layout).
]]
--- @include "prefix"
--- @include "done"
--- @include "values"

-- As text, like every number given to redis.call (values.lua text); made with `..`, since the
-- string library is not there when FUNCTION LOAD runs this line.
local TASK_EVENT_BUFFER_TEXT = TASK_EVENT_BUFFER .. ''

-- The call's events as values ("\n" between two), and how many there are.
local TASK_EVENTS, TASK_EVENT_LEN, TASK_EVENT_COUNT = {}, 0, 0 --- @per-call
-- Where each chunk of TASK_EVENT_CHUNK events ends among the values.
local TASK_EVENT_CUTS = {} --- @per-call
-- The previous event's kind, type, pool, at and own values in the current chunk.
local TASK_EVENT_LAST = {} --- @per-call

-- Records one event of task `id`; `v1`, `v2`: its kind's own values (see above).
local function taskEvent(kind, id, type, pool, now, v1, v2)
  if EVENTS_OFF then return end
  local e, n, last = TASK_EVENTS, TASK_EVENT_LEN, TASK_EVENT_LAST
  if TASK_EVENT_COUNT % TASK_EVENT_CHUNK == 0 then
    -- A new chunk: it repeats nothing of the previous one (each batch is read alone).
    if TASK_EVENT_COUNT > 0 then TASK_EVENT_CUTS[#TASK_EVENT_CUTS + 1] = n end
    last = {}
    TASK_EVENT_LAST = last
  else
    n = n + 1
    e[n] = '\n'
  end
  if kind == last[1] and type == last[2] and pool == last[3] and now == last[4] and
    v1 == last[5] and v2 == last[6] then
    -- Everything but the id repeats: the event is its id alone.
    e[n + 1] = id
    TASK_EVENT_LEN, TASK_EVENT_COUNT = n + 1, TASK_EVENT_COUNT + 1
    return
  end
  e[n + 1] = kind == last[1] and '' or kind
  e[n + 2] = id
  e[n + 3] = type == last[2] and '' or type
  e[n + 4] = pool == last[3] and '' or pool
  e[n + 5] = now == last[4] and '' or now
  last[1], last[2], last[3], last[4], last[5], last[6] = kind, type, pool, now, v1, v2
  n = n + 5
  if v1 ~= nil then
    n = n + 1
    e[n] = v1
  end
  if v2 ~= nil then
    n = n + 1
    e[n] = v2
  end
  TASK_EVENT_LEN, TASK_EVENT_COUNT = n, TASK_EVENT_COUNT + 1
end

-- Run by done(): the call's events, as batches.
flushTaskEvents = function()
  if TASK_EVENT_COUNT == 0 then return end
  TASK_EVENT_CUTS[#TASK_EVENT_CUTS + 1] = TASK_EVENT_LEN
  local from = 1
  for _, to in ipairs(TASK_EVENT_CUTS) do
    local seq = text(redis.call('INCR', P .. 'tevseq'))
    -- pcall: a stream someone wrote ahead of the counter must never fail the transition.
    redis.pcall('XADD', P .. 'tevents', 'MAXLEN', '~', TASK_EVENT_BUFFER_TEXT, seq .. '-0', 'e',
      table.concat(TASK_EVENTS, '|', from, to))
    redis.call('PUBLISH', P .. 'tevents', seq)
    from = to + 1
  end
  TASK_EVENTS, TASK_EVENT_LEN, TASK_EVENT_COUNT, TASK_EVENT_CUTS = {}, 0, 0, {}
end
