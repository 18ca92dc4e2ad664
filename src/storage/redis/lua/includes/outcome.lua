--[[
  Workflow conditions (src/storage/memory/workflow.ts decides alike).
]]

-- Whether a parent that ended in `status` satisfies condition `cond` ('s'|'f'): 'met',
-- 'broken', or nil while the parent is unfinished.
local function outcome(cond, status)
  if status == 'succeeded' then return cond == 's' and 'met' or 'broken' end
  if status == 'dead' or status == 'expired' then return cond == 'f' and 'met' or 'broken' end
  if status == 'cancelled' then return 'broken' end
  return nil
end
