--[[
  The key of a task's hash.
]]
--- @include "prefix"

local function tkey(id) return P .. 'task:' .. id end
