--[[
  done(reply), the end of every script that changed tasks: counters are summed per script
  and written once, and history, duration samples and finished rows are trimmed once.
]]
--- @include "defer"
--- @include "bump"
--- @include "values"

-- Steps that finish.lua, retention.lua and task-events.lua set when a script includes them,
-- so a script that ends no task carries neither.
local persistCascades, applyRetention, flushTaskEvents

local function done(reply)
  flushDeferred()
  if persistCascades then persistCascades() end
  if applyRetention then applyRetention() end
  if flushTaskEvents then flushTaskEvents() end
  for key, h in pairs(BUMPS) do
    for field, delta in pairs(h) do
      if delta ~= 0 then redis.call('HINCRBY', key, field, text(delta)) end
    end
  end
  BUMPS = {}
  return reply
end
