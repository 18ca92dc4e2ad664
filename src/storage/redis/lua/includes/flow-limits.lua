--[[
  Flow control at submit: the latest submit's limits become the key's (keys: flow-state.lua).
]]
--- @include "flow-state"
--- @include "values"

-- A submit sets the key's limits ("" = none); raised ones may let parked tasks start.
local function setFlowLimits(key, par, rate, per, now)
  redis.call('ZADD', P .. 'flowkeys', text(now), key)
  local set, unset = {}, {}
  for _, fv in ipairs({{'par', par}, {'rate', rate}, {'per', per}}) do
    if fv[2] == '' then
      unset[#unset + 1] = fv[1]
    else
      set[#set + 1] = fv[1]
      set[#set + 1] = fv[2]
    end
  end
  local k = P .. 'flow:' .. key
  if #set > 0 then redis.call('HSET', k, unpack(set)) end
  if #unset > 0 then redis.call('HDEL', k, unpack(unset)) end
  FLOWS[key] = nil
end
