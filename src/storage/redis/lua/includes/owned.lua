--[[
  The fencing check of every settle.
]]
--- @include "load"

-- A task the caller holds: running, claimed by `workerId` in the claim whose token is
-- `token` (a late settle of an attempt recovered and claimed again is refused).
local function owned(id, workerId, token)
  local t = load(id, RUNNING_FIELDS)
  if t and t.status == 'running' and t.workerId == workerId and t.claimSeq == token then
    return t
  end
  return nil
end
