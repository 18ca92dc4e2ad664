--[[
  The expiry index (`expiries`): tasks that may expire before they start (insert, fail-task,
  requeue add them; expireDue and the claim read them; the memory store's ExpiryIndex).
]]
--- @include "prefix"
--- @include "tkey"
--- @include "publish"

-- A task with an expiry joins the index at `at` (text, or nil: none) and announces it, so
-- every worker arms its wheel for the expiry duty. A running task's entry is dropped lazily:
-- one that goes back to wait (a retry, a stall, a hand-back) is added again.
local function trackExpiry(id, at)
  if not at or at == '' then return end
  redis.call('ZADD', P .. 'expiries', at, id)
  publish({kind = 'expiry', id = id, at = tonumber(at)})
end

-- The same, reading the task's expiry (a task going back to wait).
local function retrackExpiry(id)
  local at = redis.call('HGET', tkey(id), 'expiresAt')
  if at then trackExpiry(id, at) end
end
