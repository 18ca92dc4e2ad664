--[[
  nextDue: when each kind of timed work falls due next, for a process with no timing wheel
  (the edge deliverer arms its one alarm for the earliest).

  KEYS[1]  key prefix `<name>:{<tag>}:` (delayed, leases, schedules, expiries)
  ARGV     none

  Read only (but for the layout stamp every script may add to a store that never held a
  task). Returns {delayed, lease, schedule, expiry}: each the lowest score of its zset as
  text, or "" when empty; a schedule whose next occurrence is NEVER counts as none (paused
  schedules are not in the set).
]]
--- @include "prefix"

local function first(key, max)
  local found = redis.call('ZRANGEBYSCORE', P .. key, '-inf', max, 'WITHSCORES', 'LIMIT', 0, 1)
  return found[2] or ''
end

return {
  first('delayed', '+inf'),
  first('leases', '+inf'),
  first('schedules', '(' .. NEVER),
  first('expiries', '+inf'),
}
