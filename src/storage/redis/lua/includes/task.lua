--[[
  Shared helpers, inlined into every script by scripts/tools/gen-lua.ts (`--- @include "task"`).

  Every key derives from KEYS[1], the prefix `<name>:{<tag>}:`. Its hash tag puts every
  derived key in the same Redis Cluster slot as KEYS[1], so each script stays single-slot.
  The key layout (mirrored by src/storage/redis/keys.ts):

    task:<id>        hash    the task record, absent field = null: the fields scripts use
                             (id, type, pool, priority, maxRetries, key, runAt, status,
                             attempt, startedAt, finishedAt, workerId, progress, result,
                             error, cancelReason), `payload` (JSON), `body` (JSON of the
                             fields only TypeScript reads: createdAt, timeoutMs, backoff,
                             scheduleId, dependsOn, onSuccessOf, onFailureOf), and
                             bookkeeping: order (creation seq), seq (queue/delay position),
                             pending (parents unfinished), children ("1" once it has any),
                             claimSeq (the running claim's seq: claim order for lease
                             recovery, and the fencing token every settle must present),
                             stalls (attempts lost with their worker; absent = 0)
    children:<id>    list    "<s|f><childId>": a waiting child and the outcome it needs
    all              zset    every task, score = order (listings, newest first)
    counts           hash    status -> number of tasks in it
    status:<status>  zset    score = order, for the rare statuses only (waiting, dead,
                             cancelled); status:dead is the dead-letter list
    ready:<pool>     zset    queued tasks, score = -priority, member = seq(16 digits)..id
    delayed          zset    scheduled/retrying tasks, score = runAt, member = seq(16)..id
    leases           zset    running tasks, score = lease expiry, member = id
    finished         zset    succeeded/cancelled tasks in finishing order (row retention),
                             member = status initial (s|c)..id, so pruning reads no row
    keys             hash    dedup key -> id of the unfinished task holding it
    cascades         list    workflow cascades left for a later call (includes/finish.lua),
                             "<status initial><offset>:<parentId>"
    seq              string  the one monotonic counter (order, seq, claimSeq, history)
    stat-pools       zset    pools that ever had queued/running work, score = first use
    running          hash    pool -> running count
    totals           hash    succeeded / failedAttempts / dead
    history          zset    finished attempts, score = history seq, member = seq(16)..json
    types            zset    task types with duration samples, score = first use
    durations:<type> list    latest duration samples (ms), newest first, capped
    events           channel pub/sub (PUBLISH), JSON events

  Scripts that change tasks end with `return done(reply)`: counters are summed per script
  and written once, and history, duration samples and finished rows are trimmed once.
]]
local P = KEYS[1]
local DURATION_SAMPLES = 1000
local INDEXED = {waiting = true, dead = true, cancelled = true}

local function tkey(id) return P .. 'task:' .. id end

local function nextSeq() return redis.call('INCR', P .. 'seq') end

-- Number to text. Lua's own conversion (tostring, and passing a number to redis.call) goes
-- through printf's floating-point path, ~3x the cost of an integer format: on hot paths,
-- pass redis.call text made here.
local function text(n)
  if n % 1 == 0 and n > -1e15 and n < 1e15 then return string.format('%d', n) end
  return tostring(n)
end

-- Fixed-width so members with equal scores sort by seq (FIFO among equals).
local function seqMember(seq, id) return string.format('%016d', seq) .. id end

local function num(v)
  if v == false or v == nil or v == '' then return nil end
  return tonumber(v)
end

local function str(v)
  if v == false or v == nil then return nil end
  return v
end

local function int(n) return string.format('%.0f', n) end

-- redis.call(cmd, key, list[from], ..., list[#list]) in chunks: unpack() is bounded by Lua's
-- C stack (~8000 values), and a claim of 4000 tasks has 8000 lease values. Chunks hold an
-- even number of values, so score/member pairs stay whole.
local function callChunked(cmd, key, list, from)
  for i = from or 1, #list, 4000 do redis.call(cmd, key, unpack(list, i, math.min(i + 3999, #list))) end
end

-- Writes to shared index keys that no script reads before done() (leases, finished,
-- history, durations:<type>) are deferred and sent by done() as one command per key and
-- kind, in the order they were made: from Lua every redis.call has a fixed cost several
-- times that of adding one member, and a batch of 50 completions made ~5 such calls each.
local DEFERRED, deferredKeys = {}, {}
local function defer(cmd, key, a, b)
  local ops = DEFERRED[key]
  if not ops then
    ops = {}
    DEFERRED[key] = ops
    deferredKeys[#deferredKeys + 1] = key
  end
  local last = ops[#ops]
  if not last or last[1] ~= cmd then
    last = {cmd}
    ops[#ops + 1] = last
  end
  last[#last + 1] = a
  if b ~= nil then last[#last + 1] = b end
end

local function flushDeferred()
  for _, key in ipairs(deferredKeys) do
    for _, op in ipairs(DEFERRED[key]) do callChunked(op[1], key, op, 2) end
  end
  DEFERRED, deferredKeys = {}, {}
end

local function publish(event) redis.call('PUBLISH', P .. 'events', cjson.encode(event)) end

local announced = {}
local function announceReady(pool)
  if not announced[pool] then
    announced[pool] = true
    publish({kind = 'ready', pool = pool})
  end
end

-- Counter deltas, summed over the script and written by done().
local BUMPS = {}
local function bump(key, field, delta)
  local h = BUMPS[key]
  if not h then
    h = {}
    BUMPS[key] = h
  end
  h[field] = (h[field] or 0) + delta
end

local usedPools = {}
local function usePool(pool)
  if not usedPools[pool] then
    usedPools[pool] = true
    redis.call('ZADD', P .. 'stat-pools', 'NX', nextSeq(), pool)
  end
end

-- Hash reads cost per field inside Lua, so a running task (complete, fail: the hot path)
-- loads only what ending an attempt needs; `order` and `seq` are fetched when filing needs
-- them. Lists start with `status`: an absent status means an absent task.
local RUNNING_FIELDS = {'status', 'workerId', 'type', 'pool', 'attempt', 'startedAt', 'key',
  'children', 'maxRetries', 'claimSeq'}
local FIELDS = {'status', 'workerId', 'type', 'pool', 'attempt', 'startedAt', 'key',
  'children', 'maxRetries', 'priority', 'seq', 'order', 'runAt', 'claimSeq'}

local function isOne(v) return v == '1' end
-- How each loaded field is read; a field not listed stays text (absent: nil).
local READ = {
  workerId = str, attempt = tonumber, startedAt = num, key = str, children = isOne,
  maxRetries = tonumber, priority = num, seq = num, order = num, runAt = num, claimSeq = str,
}

local function load(id, fields)
  fields = fields or FIELDS
  local v = redis.call('HMGET', tkey(id), unpack(fields))
  if not v[1] then return nil end
  local t = {id = id}
  for i, field in ipairs(fields) do
    local read = READ[field]
    if read then t[field] = read(v[i]) else t[field] = str(v[i]) end
  end
  return t
end

-- The fields a filing step needs that a light load skipped.
local function need(t, field)
  if t[field] == nil then t[field] = num(redis.call('HGET', tkey(t.id), field)) end
  return t[field]
end

-- Files a task where its status lives (the memory store's TaskTable#file). `fields` are
-- more field/value pairs to write in the same HSET. `keepSeq` queues the task at the queue
-- position it had before it ran (a stalled or handed-back attempt goes back to the front of
-- its priority), instead of behind everything queued since.
local function enter(t, status, now, fields, keepSeq)
  local id = t.id
  fields = fields or {}
  fields[#fields + 1] = 'status'
  fields[#fields + 1] = status
  t.status = status
  bump(P .. 'counts', status, 1)
  if INDEXED[status] then redis.call('ZADD', P .. 'status:' .. status, need(t, 'order'), id) end
  if status == 'queued' then
    if not (keepSeq and need(t, 'seq')) then
      t.seq = nextSeq()
      fields[#fields + 1] = 'seq'
      fields[#fields + 1] = t.seq
    end
    redis.call('ZADD', P .. 'ready:' .. t.pool, -need(t, 'priority'), seqMember(t.seq, id))
    usePool(t.pool)
    announceReady(t.pool)
  elseif status == 'scheduled' or status == 'retrying' then
    t.seq = nextSeq()
    fields[#fields + 1] = 'seq'
    fields[#fields + 1] = t.seq
    redis.call('ZADD', P .. 'delayed', t.runAt, seqMember(t.seq, id))
    publish({kind = 'delayed', id = id, runAt = t.runAt})
  elseif status == 'running' then
    usePool(t.pool)
    bump(P .. 'running', t.pool, 1)
  elseif status == 'succeeded' or status == 'cancelled' then
    defer('ZADD', P .. 'finished', text(nextSeq()), string.sub(status, 1, 1) .. id)
  end
  redis.call('HSET', tkey(id), unpack(fields))
end

-- Takes a task out of where its current status lives.
local function leave(t)
  local id, status = t.id, t.status
  bump(P .. 'counts', status, -1)
  if INDEXED[status] then redis.call('ZREM', P .. 'status:' .. status, id) end
  if status == 'queued' then
    redis.call('ZREM', P .. 'ready:' .. t.pool, seqMember(need(t, 'seq'), id))
  elseif status == 'scheduled' or status == 'retrying' then
    redis.call('ZREM', P .. 'delayed', seqMember(need(t, 'seq'), id))
  elseif status == 'running' then
    defer('ZREM', P .. 'leases', id)
    bump(P .. 'running', t.pool, -1)
  elseif status == 'succeeded' or status == 'cancelled' then
    defer('ZREM', P .. 'finished', string.sub(status, 1, 1) .. id)
  end
end

local function move(t, status, now, fields, keepSeq)
  leave(t)
  enter(t, status, now, fields, keepSeq)
end

-- Puts a running attempt back in its queue without counting it (handed back, stalled, or
-- claimed by a call whose reply was lost): its attempt number is restored, it keeps its
-- queue position, and the claim's token no longer settles it. `fields` are more to write.
local function requeue(t, now, fields)
  redis.call('HDEL', tkey(t.id), 'startedAt', 'claimSeq')
  fields = fields or {}
  fields[#fields + 1] = 'attempt'
  fields[#fields + 1] = text(t.attempt - 1)
  move(t, 'queued', now, fields, true)
end

-- The task's hash as a flat field/value list, as HGETALL returns it.
local function record(id) return redis.call('HGETALL', tkey(id)) end

-- A task the caller holds: running, claimed by `workerId` in the claim whose token is
-- `token` (a late settle of an attempt recovered and claimed again is refused).
local function owned(id, workerId, token)
  local t = load(id, RUNNING_FIELDS)
  if t and t.status == 'running' and t.workerId == workerId and t.claimSeq == token then
    return t
  end
  return nil
end

--- @include "finish"
