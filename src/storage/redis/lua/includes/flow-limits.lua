--[[
  Flow control at submit: the latest submit's limits become the key's (keys: flow-state.lua).
]]
--- @include "flow-state"
--- @include "values"

-- A submit sets the key's limits ("" = none); raised ones may let parked tasks start.
local function setFlowLimits(key, par, rate, per, now)
  redis.call('ZADD', P .. 'flowkeys', text(now), key)
  redis.call('HSET', P .. 'flowlimits', key, flowLimitsText(par, rate, per))
  local f = FLOWS[key]
  if f then f.par, f.rate, f.per = num(par), num(rate), num(per) end
end
