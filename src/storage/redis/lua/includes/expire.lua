--[[
  Ending tasks that were not started by their expiresAt (expireDue; the claim, which never
  starts one): the memory store's TaskMoves#expire and its claim loop.
]]
--- @include "prefix"
--- @include "values"
--- @include "bump"
--- @include "finish"

-- Ends t `expired`: no attempt recorded (it never ran), key released, workflow children
-- settled as for `dead`.
local function expireTask(t, now)
  redis.call('ZREM', P .. 'expiries', t.id)
  finish(t, 'expired', now)
  bump(P .. 'totals', 'expired', 1)
end

-- Whether any entry of the index is due: the claim checks its tasks only then.
local function anyExpiryDue(now)
  return redis.call('ZRANGEBYSCORE', P .. 'expiries', '-inf', now, 'LIMIT', '0', '1')[1] ~= nil
end

-- Whether an expiresAt (text, or nil: none) has passed at `now`.
local function expiredBy(expiresAt, now)
  local at = num(expiresAt)
  return at ~= nil and at <= now
end
