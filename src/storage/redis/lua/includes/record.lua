--[[
  A task's hash as a flat field/value list, as HGETALL returns it, with its id (decoded by
  codec.ts).
]]
--- @include "tkey"

-- The id is not stored (the key holds it): it goes in front, where decodeTask reads it.
local function record(id)
  local row = redis.call('HGETALL', tkey(id))
  if #row == 0 then return row end
  table.insert(row, 1, 'id')
  table.insert(row, 2, id)
  return row
end
