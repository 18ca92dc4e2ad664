--[[
  A task's hash as a flat field/value list, as HGETALL returns it (decoded by codec.ts).
]]
--- @include "tkey"

local function record(id) return redis.call('HGETALL', tkey(id)) end
