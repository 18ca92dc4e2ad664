--[[
  Counter deltas, summed over the script and written by done().
]]

local BUMPS = {} --- @per-call
local function bump(key, field, delta)
  local h = BUMPS[key]
  if not h then
    h = {}
    BUMPS[key] = h
  end
  h[field] = (h[field] or 0) + delta
end
