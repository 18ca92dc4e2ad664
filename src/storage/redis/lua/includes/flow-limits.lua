--[[
  Flow control at submit: the latest submit's limits become the key's (keys: flow-state.lua).
]]
--- @include "flow-state"
--- @include "values"

-- A submit sets the key's limits ("" = none); raised ones may let parked tasks start.
local function setFlowLimits(key, par, rate, per, now)
  redis.call('ZADD', P .. 'flowkeys', text(now), key)
  local f = flowOf(key) -- before flowl is overwritten: its state is read from the old one
  local before = flowPacked(f)
  redis.call('SET', P .. 'flowl:' .. key, flowLimitsText(par, rate, per))
  f.par, f.rate, f.per = num(par), num(rate), num(per)
  -- Tokens counted earlier in this call (an earlier task of the batch) were counted under
  -- the old rate and period: count them again under the new ones.
  f.tokensAt = nil
  local after = flowPacked(f)
  if after ~= before then flowAdd(key, after - before) end
end
