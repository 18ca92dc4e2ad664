--[[
  enqueue: stores a batch of new tasks, all or none.

  KEYS[1]  key prefix `<name>:{<tag>}:`; every other key derives from it (includes/prefix.lua)
  ARGV[1]  now (epoch ms)
  ARGV[2]  maxUnfinished, or "" for no limit
  ARGV[3]  number of tasks N
  ARGV[4..] N tasks, each encoded as in includes/insert.lua

  Checks every task before writing anything, in batch order: an id in use (or repeated in the
  batch) or a `key` held by an unfinished task (or earlier in the batch) stops at once; unknown
  parents are collected over the whole batch; capacity comes last.

  A task whose dedupe key is taken (`dedupe:<key>` unexpired at `now`, or taken by an earlier
  task of the batch) is neither checked nor stored: its answer names the first task, with that
  task's status, or PRUNED_STATUS when retention removed its row. A stored task with a dedupe
  key takes it for dedupeTtl ms.

  A task whose debounce key maps to a task still scheduled with now < its runAt (or to an
  earlier task of the batch) is neither checked nor stored: that task takes its spec (payload,
  type, pool, options; not its id) and waits until min(now + delay, firstAt + maxWait), firstAt
  being the burst's first submit. A stored task with a debounce key starts a burst.

  Returns
    {Code.ok, answer_1, ..., answer_N} per task its status alone when stored with nothing to
                                       add, else {status, cancelReason, hitId, hit}: stored
                                       and cancelled at once (cancelReason, hitId ""); a dedupe
                                       hit (hit "dedupe", status the first task's); a debounce
                                       hit (hit = the new runAt, status "scheduled")
    {Code.idInUse, id}                 id already in use
    {Code.scheduleIdInUse, id}         id in use by a schedule (one namespace)
    {Code.keyHeld, key, holderId}      key held ("" when the holder is earlier in the batch)
    {Code.unknownParent, path, parentId, ...}  unknown parents: (path, parentId) pairs, path
                                       like "[1].dependsOn[0]"
    {Code.capacity, limit}             more than maxUnfinished unfinished tasks
  Publishes ready{pool} per pool with new queued work and delayed{id, runAt} per delayed task.
]]
--- @include "prefix"
--- @include "tkey"
--- @include "values"
--- @include "insert"
--- @include "move"
--- @include "done"

local now = tonumber(ARGV[1])
local limit = num(ARGV[2])
local n = tonumber(ARGV[3])

-- Each task is read once, into one table made at its full size, and kept for the second
-- pass (reading it again cost a tenth of a submit's instructions, at 100 or 1,000 a batch).
local tasks, ids, keys, issues = {}, {}, {}, {}
-- Dedupe keys taken earlier in this batch (key -> id), each hit's first task (j -> id);
-- bursts started earlier in this batch (key -> {id, firstAt}), each debounce hit's (j -> it).
local taken, hits, bursts, rearms = {}, {}, {}, {}
local stored = 0
local at = ''
local function check(parent, path)
  if not ids[parent] and redis.call('EXISTS', tkey(parent)) == 0 then
    issues[#issues + 1] = at .. path
    issues[#issues + 1] = parent
  end
end
-- A dedupe or debounce entry "<time>:<id>" under `name`, as (time, id), or nil.
local function entryOf(name)
  local entry = redis.call('GET', P .. name)
  if not entry then return nil end
  local sep = string.find(entry, ':', 1, true)
  return tonumber(string.sub(entry, 1, sep - 1)), string.sub(entry, sep + 1)
end
-- The id holding a dedupe key at `now`: the entry's own expiry is compared with the
-- callers' clock, as the embedded store does; PX only collects it.
local function dedupeHolder(key)
  if taken[key] then return taken[key] end
  local expiresAt, id = entryOf('dedupe:' .. key)
  if expiresAt and expiresAt > now then return id end
  return nil
end
-- The burst a debounce key maps to at `now`: its task still scheduled, not yet due.
local function burstOf(key)
  if bursts[key] then return bursts[key] end
  local firstAt, id = entryOf('debounce:' .. key)
  if not firstAt then return nil end
  local row = redis.call('HMGET', tkey(id), 'status', 'runAt')
  if row[1] ~= 'scheduled' or now >= tonumber(row[2]) then return nil end
  return {id = id, firstAt = firstAt}
end
local i = 4
for j = 1, n do
  local t
  t, i = readTask(ARGV, i)
  tasks[j] = t
  -- A plain task (readTask) has no key, parent, dedupe or debounce: its id is all to check.
  local plain = t.plain
  local first = not plain and t.dedupeKey ~= '' and dedupeHolder(t.dedupeKey)
  local burst = not plain and not first and t.debounceKey ~= '' and burstOf(t.debounceKey)
  if first then
    hits[j] = first
  elseif burst then
    rearms[j] = burst
  else
    if ids[t.id] then return {Code.idInUse, t.id} end
    -- One call asks for both (a task id and a schedule id share one namespace).
    if redis.call('EXISTS', tkey(t.id), P .. 'schedule:' .. t.id) > 0 then
      if redis.call('EXISTS', tkey(t.id)) == 1 then return {Code.idInUse, t.id} end
      return {Code.scheduleIdInUse, t.id}
    end
    if not plain then
      if t.key then
        local holder = redis.call('HGET', P .. 'keys', t.key)
        if holder or keys[t.key] then return {Code.keyHeld, t.key, holder or ''} end
        keys[t.key] = true
      end
      at = n > 1 and ('[' .. (j - 1) .. '].') or ''
      for d, parent in ipairs(t.deps) do check(parent, 'dependsOn[' .. (d - 1) .. ']') end
      if t.onSuccessOf ~= '' then check(t.onSuccessOf, 'onSuccessOf') end
      if t.onFailureOf ~= '' then check(t.onFailureOf, 'onFailureOf') end
      if t.dedupeKey ~= '' then taken[t.dedupeKey] = t.id end
      -- Only a task that waits starts a burst (the Scheduler's always does: runAt = now + delay).
      if t.debounceKey ~= '' and t.runAt and t.runAt > now then
        bursts[t.debounceKey] = {id = t.id, firstAt = now}
      end
    end
    ids[t.id] = true
    stored = stored + 1
  end
end
if #issues > 0 then
  table.insert(issues, 1, Code.unknownParent)
  return issues
end
if limit then
  local unfinished = 0
  local c = redis.call('HMGET', COUNTS, unpack(UNFINISHED_STATUSES))
  for j = 1, #UNFINISHED_STATUSES do unfinished = unfinished + (tonumber(c[j]) or 0) end
  if unfinished + stored > limit then return {Code.capacity, limit} end
end

-- The burst's key maps to its task until runAt (and a grace for Redis's own clock).
local function keepBurst(key, burst, runAt)
  redis.call('SET', P .. 'debounce:' .. key, int(burst.firstAt) .. ':' .. burst.id, 'PX',
    int(runAt - now + SUBMIT_KEY_GRACE_MS))
end

-- A debounce hit: the waiting task takes the spec of `t` (not its id) and its new runAt.
local function rearm(t, burst)
  local runAt = now + tonumber(t.debounceDelay)
  local maxWait = num(t.debounceMaxWait)
  if maxWait and burst.firstAt + maxWait < runAt then runAt = burst.firstAt + maxWait end
  local fields = {'runAt', int(runAt), 'type', t.type, 'pool', t.pool, 'priority', t.priority,
    'maxRetries', t.maxRetries, 'body', t.body}
  if t.payload ~= '' then
    fields[#fields + 1] = 'payload'
    fields[#fields + 1] = t.payload
  else
    redis.call('HDEL', tkey(burst.id), 'payload')
  end
  if t.callback ~= '' then
    fields[#fields + 1] = 'cb'
    fields[#fields + 1] = t.callback
  else
    redis.call('HDEL', tkey(burst.id), 'cb')
  end
  move({id = burst.id, status = 'scheduled', runAt = runAt}, 'scheduled', now, fields)
  keepBurst(t.debounceKey, burst, runAt)
  return runAt
end

local out = {Code.ok}
for j = 1, n do
  local status, reason, hitId, hit = nil, nil, '', ''
  if hits[j] then
    -- Earlier tasks of the batch are in already: one lookup serves both kinds of hit.
    hitId, hit = hits[j], 'dedupe'
    status = redis.call('HGET', tkey(hitId), 'status') or PRUNED_STATUS
  elseif rearms[j] then
    hitId, status = rearms[j].id, 'scheduled'
    hit = int(rearm(tasks[j], rearms[j]))
  else
    local t = tasks[j]
    status, reason = insertTask(t, now)
    if not t.plain then
      if t.dedupeKey ~= '' then
        local ttl = tonumber(t.dedupeTtl)
        redis.call('SET', P .. 'dedupe:' .. t.dedupeKey, int(now + ttl) .. ':' .. t.id, 'PX',
          int(ttl + SUBMIT_KEY_GRACE_MS))
      end
      if t.debounceKey ~= '' and t.runAt and t.runAt > now then
        keepBurst(t.debounceKey, {id = t.id, firstAt = now}, t.runAt)
      end
    end
  end
  -- Most answers are a status alone: one entry, not four, in the reply.
  if reason or hit ~= '' then
    out[j + 1] = {status, reason or '', hitId, hit}
  else
    out[j + 1] = status
  end
end
return done(out)
