--[[
  Ending a failed attempt (fail, and a task that stalled too often).
]]
--- @include "prefix"
--- @include "bump"
--- @include "move"
--- @include "attempts"
--- @include "finish"
--- @include "expiry"
--- @include "task-events"

-- Ends a failed attempt whose error is t.error (JSON; stored here) and which the caller
-- counted: retrying in the delayed set at retryAt, or dead (dead-letter list, key
-- released, children settled).
local function failTask(t, retryAt, now)
  if retryAt then
    recordAttempt(t, 'retrying', t.error, now)
    t.runAt = retryAt
    move(t, 'retrying', now, {'runAt', retryAt, 'error', t.error})
    taskEvent('retrying', t.id, t.type, t.pool, now, t.attempt, retryAt)
    retrackExpiry(t.id)
    return 'retrying'
  end
  recordAttempt(t, 'dead', t.error, now)
  finish(t, 'dead', now, {'error', t.error})
  bump(P .. 'totals', 'dead', 1)
  return 'dead'
end
