--[[
  Shared helpers, inlined into every script by scripts/gen-lua.ts (`--- @include "task"`).

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
                             claimSeq (claim order, for lease recovery)
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
-- them.
local RUNNING_FIELDS = {'status', 'workerId', 'type', 'pool', 'attempt', 'startedAt', 'key',
  'children', 'maxRetries'}
local FIELDS = {'status', 'workerId', 'type', 'pool', 'attempt', 'startedAt', 'key',
  'children', 'maxRetries', 'priority', 'seq', 'order', 'runAt'}

local function load(id, fields)
  local v = redis.call('HMGET', tkey(id), unpack(fields or FIELDS))
  if not v[1] then return nil end
  return {
    id = id, status = v[1], workerId = str(v[2]), type = v[3], pool = v[4],
    attempt = tonumber(v[5]), startedAt = num(v[6]), key = str(v[7]), children = v[8] == '1',
    maxRetries = tonumber(v[9]), priority = num(v[10]), seq = num(v[11]), order = num(v[12]),
    runAt = num(v[13]),
  }
end

-- The fields a filing step needs that a light load skipped.
local function need(t, field)
  if t[field] == nil then t[field] = num(redis.call('HGET', tkey(t.id), field)) end
  return t[field]
end

-- Files a task where its status lives (the memory store's TaskTable#file). `fields` are
-- more field/value pairs to write in the same HSET.
local function enter(t, status, now, fields)
  local id = t.id
  fields = fields or {}
  fields[#fields + 1] = 'status'
  fields[#fields + 1] = status
  t.status = status
  bump(P .. 'counts', status, 1)
  if INDEXED[status] then redis.call('ZADD', P .. 'status:' .. status, need(t, 'order'), id) end
  if status == 'queued' then
    t.seq = nextSeq()
    fields[#fields + 1] = 'seq'
    fields[#fields + 1] = t.seq
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

local function move(t, status, now, fields)
  leave(t)
  enter(t, status, now, fields)
end

-- The task's hash as a flat field/value list, as HGETALL returns it.
local function record(id) return redis.call('HGETALL', tkey(id)) end

-- A task the caller owns: running and claimed by `workerId`.
local function owned(id, workerId)
  local t = load(id, RUNNING_FIELDS)
  if t and t.status == 'running' and t.workerId == workerId then return t end
  return nil
end

--- @include "finish"
