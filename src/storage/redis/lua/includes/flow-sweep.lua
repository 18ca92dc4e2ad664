--[[
  Flow control housekeeping: idle keys are forgotten (keys: flow-state.lua).
]]
--- @include "flow-state"
--- @include "values"

-- Forgets flow keys not submitted for FLOW_IDLE_TTL_MS with nothing running or parked (at
-- most `limit` a call); a key still in use is looked at again a period later. Off the hot
-- paths: claims and completions never touch flowkeys.
local function flowSweep(now, limit)
  local stale = redis.call('ZRANGEBYSCORE', P .. 'flowkeys', '-inf', text(now - FLOW_IDLE_TTL_MS),
    'LIMIT', 0, limit)
  for _, key in ipairs(stale) do
    local state = tonumber(redis.call('GET', P .. 'flow:' .. key)) or 0
    if state % RUN_SPAN == 0 and state < PARKED_FLAG then
      redis.call('ZREM', P .. 'flowkeys', key)
      redis.call('DEL', P .. 'flow:' .. key, P .. 'flowl:' .. key)
      FLOWS[key] = nil
    else
      redis.call('ZADD', P .. 'flowkeys', text(now), key)
    end
  end
end
