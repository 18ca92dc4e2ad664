--[[
  Flow control in a claim: a task of a key at its limit is parked, due wakes are taken
  first (keys: flow-state.lua).
]]
--- @include "flow-state"
--- @include "flow-unpark"
--- @include "tkey"
--- @include "values"
--- @include "bump"

local FLOW_DUE_BOUND_TEXT = FLOW_DUE_BOUND .. ''

-- Keys whose state this call changed in FLOWS only: flowFlush writes them, once.
local FLOW_DIRTY = {} --- @per-call

-- A key forgotten while idle gets back the limits its task `body` was submitted with.
local function flowRestore(key, f, body, now)
  if f.par or f.rate then return end
  redis.call('ZADD', P .. 'flowkeys', text(now), key)
  local fc = bodyTable(body).flowControl
  if type(fc) ~= 'table' then return end
  local limit = function(name) return type(fc[name]) == 'number' and fc[name] or nil end
  f.par, f.rate, f.per = limit('parallelism'), limit('rate'), limit('periodMs')
  if not (f.par or f.rate) then return end
  redis.call('SET', P .. 'flowl:' .. key,
    flowLimitsText(f.par and text(f.par), f.rate and text(f.rate), f.per and text(f.per)))
  FLOW_DIRTY[key] = true
end

-- Takes a running slot of a key no earlier step of this call has read, with one INCRBY:
-- true when the task may start now. When the key has parked tasks or a rate limit, is at
-- its parallelism limit or was forgotten (no limits), the slot is given back and the
-- claim takes the full path (flowOf, flowRoom, flowTake).
local function flowQuickTake(key)
  if FLOWS[key] then return false end
  local name = P .. 'flow:' .. key
  local state = redis.call('INCRBY', name, 1)
  if state < FLAG_SPAN then
    local par = math.floor(state / RUN_SPAN)
    if par > 0 and state % RUN_SPAN <= par then return true end
  end
  redis.call('INCRBY', name, -1)
  return false
end

-- A task of the key is taken by a claim (after flowRoom: its tokens are counted at now).
local function flowTake(key, f)
  f.run = f.run + 1
  if f.rate then
    f.tokens = f.tokens - 1
    FLOW_RATED[key] = true
  end
end

-- Writes the state of every key the claim changed in FLOWS, with one MSET (FLOWS holds each
-- key's whole state: every other write of this call went through it too).
local function flowFlush()
  local fields = {}
  for key in pairs(FLOW_DIRTY) do
    local f = FLOWS[key]
    fields[#fields + 1] = f.stateKey
    fields[#fields + 1] = flowPacked(f) -- a number: sent as its digits
  end
  FLOW_DIRTY = {}
  if #fields > 0 then redis.call('MSET', unpack(fields)) end
end

-- The claim's writes for a task flowTake counted: one more running, its start logged.
local function flowLog(key, f, now, token)
  FLOW_DIRTY[key] = true
  if f.rate then
    local starts = P .. 'flowstarts:' .. key
    redis.call('ZADD', starts, text(now), token)
    redis.call('PEXPIRE', starts, text(f.per + FLOW_STARTS_GRACE_MS))
  end
end

-- The first parked task of the key as {score, member}, or false.
local function parkedHead(key)
  local head = redis.call('ZRANGE', P .. 'parked:' .. key, 0, 0, 'WITHSCORES')
  if #head == 0 then return false end
  return {tonumber(head[2]), head[1]}
end

-- Whether a task (score, member) sorts after `head` in queue order (FIFO within a key).
local function sortsAfter(score, member, head)
  return head and (head[1] < score or (head[1] == score and head[2] < member)) or false
end

-- Parks a queued task taken from its ready list (score -priority, its list entry).
local function park(id, key, pool, score, member, why)
  local f = flowOf(key)
  f.parked = f.parked + 1
  FLOW_DIRTY[key] = true
  redis.call('ZADD', P .. 'parked:' .. key, score, member)
  redis.call('HSET', tkey(id), 'wf', why)
  bump(P .. 'flowparked', pool, 1)
  bump(QUEUEDN, pool, -1)
end

-- Unparks the keys whose wake is due at `now` (at most FLOW_DUE_BOUND a call): a claim
-- does this first, so a rate-parked key starts as soon as its worker's timer asks.
local function flowDue(now)
  local due = redis.call('ZRANGEBYSCORE', P .. 'flowwakes', '-inf', text(now), 'LIMIT', '0',
    FLOW_DUE_BOUND_TEXT)
  for _, key in ipairs(due) do
    flowWoken(key)
    unparkFlow(key, now)
  end
end
