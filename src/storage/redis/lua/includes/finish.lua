--[[
  Ending a task in a final status, and the workflow cascades that follow (the memory
  store's cascade.ts runs them alike).
]]
--- @include "prefix"
--- @include "tkey"
--- @include "values"
--- @include "seq"
--- @include "chunked"
--- @include "publish"
--- @include "load"
--- @include "move"
--- @include "outcome"
--- @include "retention"
--- @include "done"
--- @include "task-events"
--- @include "callback"
--- @include "retained"

-- Ending a task settles its waiting children: a met condition queues (or schedules) a
-- child, a broken one cancels it, which settles its own children, and so on. A call settles
-- at most CASCADE_BUDGET children, breadth first (no recursion, so no depth limit); the rest
-- waits in the `cascades` list for continueCascades(). A parent with unsettled children
-- leaves the finished index meanwhile, so row retention cannot delete the children list the
-- cascade still reads. Each entry: {parentId, status, offset, fromList}.
local cascadeQueue, cascadeHead, cascadeBudget, draining = {}, 1, CASCADE_BUDGET, false --- @per-call
local INITIAL = {succeeded = 's', dead = 'd', cancelled = 'c', expired = 'e'}
local FROM_INITIAL = {s = 'succeeded', d = 'dead', c = 'cancelled', e = 'expired'}
local drainCascades

-- The `retained` member of a parent whose cascade was deferred (nil once its row is gone).
local function parentMember(e)
  local order = redis.call('HGET', tkey(e[1]), 'order')
  return order and finishedMember(e[2], order, e[1]) or nil
end

-- Ends a task in a final status: releases its key and lease, then settles its workflow
-- children (bounded, see above). Row retention runs in done().
local function finish(t, status, now, fields)
  fields = fields or {}
  fields[#fields + 1] = 'finishedAt'
  fields[#fields + 1] = text(now)
  if t.key and redis.call('HGET', P .. 'keys', t.key) == t.id then
    redis.call('HDEL', P .. 'keys', t.key)
  end
  move(t, status, now, fields)
  taskEvent(status, t.id, t.type, t.pool, now, t.attempt)
  addCallback(t, status, now)
  finishedAny = true
  if now > NOW then NOW = now end
  if t.children then cascadeQueue[#cascadeQueue + 1] = {t.id, status, 0, false} end
  if not draining then drainCascades(now) end
end

-- Settles one child entry ("<s|f><childId>") of a parent that ended in `status`.
local function settleChild(entry, parentId, status, now)
  local child = load(string.sub(entry, 2))
  if not child or child.status ~= 'waiting' then return end
  local o = outcome(string.sub(entry, 1, 1), status)
  if o == 'broken' then
    finish(child, 'cancelled', now, {'cancelReason', 'parent ' .. parentId .. ' ended ' .. status})
  elseif o == 'met' and redis.call('HINCRBY', tkey(child.id), 'pending', -1) == 0 then
    if child.runAt and child.runAt > now then
      move(child, 'scheduled', now)
    else
      move(child, 'queued', now)
    end
  end
end

drainCascades = function(now)
  draining = true
  while cascadeHead <= #cascadeQueue and cascadeBudget > 0 do
    local e = cascadeQueue[cascadeHead]
    local want = cascadeBudget
    local entries = redis.call('LRANGE', P .. 'children:' .. e[1], e[3], e[3] + want - 1)
    cascadeBudget = cascadeBudget - #entries
    for _, entry in ipairs(entries) do settleChild(entry, e[1], e[2], now) end
    if #entries < want then
      cascadeHead = cascadeHead + 1
      -- Settled now: a parent taken from the list may be pruned again.
      -- Dead and expired rows stay (PRUNABLE_STATUSES: not in the finished index).
      local member = e[4] and PRUNABLE_STATUSES[e[2]] and parentMember(e)
      if member then
        local seq = nextSeq()
        redis.call('HSET', tkey(e[1]), 'seq', text(seq))
        retain(seq, member)
      end
    else
      e[3] = e[3] + #entries
    end
  end
  draining = false
end

-- Takes up to `limit` deferred cascades from the list and settles what the budget allows.
local function continueCascades(now, limit)
  local list = P .. 'cascades'
  local entries = redis.call('LRANGE', list, 0, limit - 1)
  if #entries == 0 then return 0 end
  redis.call('LTRIM', list, #entries, -1)
  for _, entry in ipairs(entries) do
    local status, offset, parent = string.match(entry, '^(%a)(%d+):(.*)$')
    cascadeQueue[#cascadeQueue + 1] = {parent, FROM_INITIAL[status], tonumber(offset), true}
  end
  if now > NOW then NOW = now end
  local before = cascadeBudget
  drainCascades(now)
  return before - cascadeBudget
end

-- Saves the cascades this call could not finish (done() calls it before row retention).
persistCascades = function()
  if cascadeHead > #cascadeQueue then return end
  local list, entries = P .. 'cascades', {}
  for i = cascadeHead, #cascadeQueue do
    local e = cascadeQueue[i]
    entries[#entries + 1] = INITIAL[e[2]] .. text(e[3]) .. ':' .. e[1]
    if not e[4] and PRUNABLE_STATUSES[e[2]] then
      unretain(num(redis.call('HGET', tkey(e[1]), 'seq')))
    end
  end
  callChunked('RPUSH', list, entries)
  cascadeQueue, cascadeHead = {}, 1
  publish({kind = 'cascade'})
end
