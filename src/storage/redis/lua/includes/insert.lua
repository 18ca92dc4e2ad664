--[[
  Reading new tasks from ARGV and inserting them (enqueue, fireSchedule).

  One task is encoded as consecutive ARGV entries (see src/storage/redis/codec.ts):
    TASK_HEAD (id, type, pool, priority, payload JSON, body JSON, maxRetries), nOptions,
    (option number, value) x nOptions for the TASK_OPTIONS the task sets (runAt, key,
    onSuccessOf, onFailureOf, dedupeKey, dedupeTtl, debounceKey, debounceDelay,
    debounceMaxWait, expiresAt, flowKey, flowParallelism, flowRate, flowPeriod, callback: the
    `cb` field, see callback.lua; an option not sent reads as ""), nDeps, dep_1..dep_nDeps,
    nConds, (parentId, "s"|"f") x nConds
  The workflow fields repeat what body holds so validation can name `dependsOn[i]`; the
  conditions are the deduplicated parents in order, each with the outcome it needs. A plain
  task (no option and no dependsOn: most submits; a condition comes with one or the other)
  is TASK_HEAD and "-" alone, or, with pool, priority and maxRetries at their defaults,
  SHORT_HEAD (id, type, payload JSON, body JSON) and "=".
]]
--- @include "prefix"
--- @include "tkey"
--- @include "values"
--- @include "seq"
--- @include "move"
--- @include "outcome"
--- @include "expiry"
--- @include "flow-limits"
--- @include "flow-unpark"
--- @include "task-events"
--- @include "callback"
--- @include "index-buckets"

-- What a task without dependencies or conditions reads as either; nothing writes to it.
local NO_ITEMS = {} --- @per-call

-- One table made at its full size: growing it a field at a time rehashed it five times, a
-- sixth of a submit's instructions. A plain task is its head alone, marked `plain`: its other
-- fields are nil, so only code that checks `plain` first may read it (enqueue-1.lua,
-- insertTask), which skip the option, parent and condition steps for it (a fifth of a submit).
local function readTask(argv, i)
  -- A short head's "=" stands where a full head has its payload (codec.ts SHORT_HEAD).
  local s = i + #SHORT_HEAD
  if argv[s] == '=' then return shortHead(argv, i), s + 1 end
  local h = i + #TASK_HEAD
  if argv[h] == '-' then return plainHead(argv, i), h + 1 end
  local t = taskHead(argv, i)
  i = i + #TASK_HEAD
  local n = tonumber(argv[i])
  for j = i + 1, i + 2 * n, 2 do t[TASK_OPTIONS[tonumber(argv[j])]] = argv[j + 1] end
  i = i + 1 + 2 * n
  t.runAt = num(t.runAt)
  if t.key == '' then t.key = nil end
  n = tonumber(argv[i])
  i = i + 1
  t.deps = NO_ITEMS
  if n > 0 then
    t.deps = {}
    for j = 1, n do t.deps[j] = argv[i + j - 1] end
  end
  i = i + n
  n = tonumber(argv[i])
  i = i + 1
  t.conds = NO_ITEMS
  if n > 0 then
    t.conds = {}
    for j = 1, n do
      t.conds[j] = {argv[i], argv[i + 1]}
      i = i + 2
    end
  end
  return t, i
end

local function setIf(list, field, value)
  if value and value ~= '' then
    list[#list + 1] = field
    list[#list + 1] = value
  end
end

-- Stores one validated task and files it under its initial status. Returns the status and
-- the cancel reason (when a parent already ended the wrong way).
local function insertTask(a, now)
  local order = nextSeq()
  -- Fields at their defaults are left out (load.lua, codec.ts): the hash stays small.
  -- Room for 16 entries made at once (the nils): a queued no-op task's HSET has 12.
  local fields = {'type', a.type, 'body', a.body, 'order', order,
    nil, nil, nil, nil, nil, nil, nil, nil, nil, nil}
  if a.pool ~= DEFAULT_POOL then setIf(fields, 'pool', a.pool) end
  if a.priority ~= '0' then setIf(fields, 'priority', a.priority) end
  if a.maxRetries ~= '0' then setIf(fields, 'maxRetries', a.maxRetries) end
  setIf(fields, 'payload', a.payload)
  if a.plain then
    -- Nothing below applies to it (no option, parent or condition): queued at once.
    indexAll(order, a.id)
    enter({id = a.id, pool = a.pool, priority = tonumber(a.priority), order = order}, 'queued',
      now, fields)
    taskEvent('created', a.id, a.type, a.pool, now, 'queued')
    return 'queued', nil
  end
  setIf(fields, 'runAt', a.runAt and int(a.runAt))
  setIf(fields, 'key', a.key)
  setIf(fields, 'expiresAt', a.expiresAt)
  setIf(fields, 'cb', a.callback)
  local fk = a.flowKey ~= '' and a.flowKey or nil
  setIf(fields, 'fk', fk)
  indexAll(order, a.id)
  local broken, pending = nil, 0
  for _, pc in ipairs(a.conds) do
    local parent, cond = pc[1], pc[2]
    local pstatus = redis.call('HGET', tkey(parent), 'status')
    local o = outcome(cond, pstatus)
    if o == 'broken' and not broken then broken = 'parent ' .. parent .. ' ended ' .. pstatus end
    if o == nil then
      pending = pending + 1
      redis.call('RPUSH', P .. 'children:' .. parent, cond .. a.id)
      redis.call('HSET', tkey(parent), 'children', '1')
    end
  end
  local t = {id = a.id, pool = a.pool, priority = tonumber(a.priority), order = order,
    runAt = a.runAt}
  local status
  if broken then
    status = 'cancelled'
    setIf(fields, 'cancelReason', broken)
    setIf(fields, 'finishedAt', now)
  elseif pending > 0 then
    status = 'waiting'
    setIf(fields, 'pending', pending)
  elseif a.runAt and a.runAt > now then
    status = 'scheduled'
  else
    status = 'queued'
  end
  if a.key and not broken then redis.call('HSET', P .. 'keys', a.key, a.id) end
  if fk then
    -- The latest submit's limits are the key's; raised ones may let parked tasks start.
    setFlowLimits(fk, a.flowParallelism, a.flowRate, a.flowPeriod, now)
    t.fk = fk
  end
  enter(t, status, now, fields)
  taskEvent('created', a.id, a.type, a.pool, now, status)
  -- Cancelled at insert (a parent already ended the wrong way): an ending like any other.
  if broken then
    addCallback({id = a.id, cb = a.callback ~= '' and a.callback}, 'cancelled', now)
  end
  if fk then unparkFlow(fk, now) end
  if not broken then trackExpiry(a.id, a.expiresAt) end
  return status, broken
end
