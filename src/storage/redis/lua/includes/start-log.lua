--[[
  A sliding log of starts (a zset: score = start time, member = claim token) that allows at
  most `max` starts in any window of `per` ms: a pool's rateLimit (starts:<pool>) and a flow
  key's rate (flowstarts:<key>) alike. It holds at most `max` entries before a claim adds
  its starts.
]]
--- @include "values"

-- The logged starts after `now - per`, later ones included.
local function logCount(log, per, now)
  return redis.call('ZCOUNT', log, '(' .. text(now - per), '+inf')
end

-- Starts still allowed at `now`: `max` less the logged starts after `now - per`, later ones
-- included. Calls do not come in the order of their `now` (a worker's call can be delayed
-- behind a peer's later one), so the log is trimmed to its newest `max` only: trimming to
-- this call's window would drop starts still inside an earlier `now`'s window.
local function logTokens(log, max, per, now)
  redis.call('ZREMRANGEBYRANK', log, 0, -(max + 1))
  return max - logCount(log, per, now)
end

-- When the next start is allowed: the oldest start after `now - per`, plus per (now + per
-- when there is none).
local function logNextAt(log, per, now)
  local oldest = redis.call('ZRANGEBYSCORE', log, '(' .. text(now - per), '+inf', 'WITHSCORES',
    'LIMIT', '0', '1')[2]
  return (tonumber(oldest) or now) + per
end
