--[[
  A sliding log of starts (a zset: score = start time, member = claim token) that allows at
  most `max` starts in any window of `per` ms: a pool's rateLimit (starts:<pool>) and a flow
  key's rate (flowstarts:<key>) alike.
]]
--- @include "values"

-- Starts still allowed at `now`, after trimming the log to the window and its newest `max`
-- (older entries can never matter again, so the log stays bounded by `max`).
local function logTokens(log, max, per, now)
  redis.call('ZREMRANGEBYSCORE', log, '-inf', text(now - per))
  redis.call('ZREMRANGEBYRANK', log, 0, -(max + 1))
  return max - redis.call('ZCARD', log)
end

-- When the next start is allowed: the oldest logged start + per (now + per for an empty log).
local function logNextAt(log, per, now)
  local oldest = redis.call('ZRANGE', log, 0, 0, 'WITHSCORES')[2]
  return (tonumber(oldest) or now) + per
end
