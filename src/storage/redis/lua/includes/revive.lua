--[[
  Reviving a dead, cancelled or expired task (resubmit, resubmitMatching).
]]
--- @include "prefix"
--- @include "tkey"
--- @include "move"
--- @include "task-events"

-- Returns Code.ok, or an error code with details: wrongStatus (status) or keyHeld (key,
-- holder).
local function revive(t, now)
  if t.status ~= 'dead' and t.status ~= 'cancelled' and t.status ~= 'expired' then
    return Code.wrongStatus, t.status
  end
  if t.key then
    local holder = redis.call('HGET', P .. 'keys', t.key)
    if holder and holder ~= t.id then return Code.keyHeld, t.key, holder end
    redis.call('HSET', P .. 'keys', t.key, t.id)
  end
  redis.call('HDEL', tkey(t.id), 'error', 'result', 'progress', 'startedAt', 'finishedAt',
    'cancelReason', 'pending', 'runAt', 'stalls', 'claimSeq', 'expiresAt', 'attempt')
  -- A resubmitted task starts over without an expiry.
  redis.call('ZREM', P .. 'expiries', t.id)
  t.runAt = nil
  t.attempt = 0
  move(t, 'queued', now)
  taskEvent('resubmitted', t.id, t.type, t.pool, now)
  return Code.ok
end
