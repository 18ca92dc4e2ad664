--[[
  Filing a task where its status lives (the memory store's TaskTable#file): the indexes,
  queues, counters and events of each status.
]]
--- @include "prefix"
--- @include "tkey"
--- @include "values"
--- @include "seq"
--- @include "defer"
--- @include "publish"
--- @include "bump"
--- @include "pools"
--- @include "load"
--- @include "slots"
--- @include "flow-unpark"
--- @include "retained"
--- @include "ready"

-- Pools this script queued a task in since a caller last cleared the pool's entry: a claim
-- whose expiry queued one (an onFailureOf child, a callback) reads its queue again
-- (claim-1.lua), as the embedded store's claim meets that task in its heap.
local queuedIn = {} --- @per-call

-- `fields` are more field/value pairs to write in the same HSET. `keepSeq` queues the task
-- at the queue position it had before it ran (a stalled or handed-back attempt goes back to
-- the front of its priority), instead of behind everything queued since.
local function enter(t, status, now, fields, keepSeq)
  local id = t.id
  fields = fields or {}
  fields[#fields + 1] = 'status'
  fields[#fields + 1] = status
  t.status = status
  bump(COUNTS, status, 1)
  if INDEXED_STATUSES[status] then redis.call('ZADD', P .. 'status:' .. status, need(t, 'order'), id) end
  if status == 'queued' then
    if not (keepSeq and need(t, 'seq')) then
      t.seq = nextSeq()
      fields[#fields + 1] = 'seq'
      fields[#fields + 1] = t.seq
    end
    readyAdd(t.pool, need(t, 'priority'), seqMember(t.seq, id), keepSeq)
    queuedIn[t.pool] = true
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
    -- Its finishing seq: its entry in `retained`, kept in `seq` to find it there again.
    t.seq = nextSeq()
    fields[#fields + 1] = 'seq'
    fields[#fields + 1] = text(t.seq)
    retain(t.seq, finishedMember(status, text(need(t, 'order')), id))
  end
  redis.call('HSET', tkey(id), unpack(fields))
end

-- Takes a task out of where its current status lives (a parked one out of its parked set;
-- a running one frees its flow key's slot, which may unpark the key's next task).
local function leave(t, now)
  local id, status = t.id, t.status
  bump(COUNTS, status, -1)
  if INDEXED_STATUSES[status] then redis.call('ZREM', P .. 'status:' .. status, id) end
  if status == 'queued' then
    -- Its list entry stays for a claim to drop (ready.lua); a parked one leaves its set.
    local parked = t.fk and flowLeftParked(t.fk, t.pool, id, seqMember(need(t, 'seq'), id))
    if not parked then bump(QUEUEDN, t.pool, -1) end
  elseif status == 'scheduled' or status == 'retrying' then
    redis.call('ZREM', P .. 'delayed', seqMember(need(t, 'seq'), id))
  elseif status == 'running' then
    defer('ZREM', P .. 'leases', id)
    bump(P .. 'running', t.pool, -1)
    slotFreed(t.pool)
    if t.fk then flowStopped(t.fk, now) end
  elseif status == 'succeeded' or status == 'cancelled' then
    unretain(need(t, 'seq'))
  end
end

local function move(t, status, now, fields, keepSeq)
  leave(t, now)
  enter(t, status, now, fields, keepSeq)
end
