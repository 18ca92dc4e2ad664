--[[
  A running task of `pool` ended or went back: under a global limit (control hash
  `global:<pool>`) with work queued, every instance's claimers are woken at once, since the
  slot may be taken by any of them (the claim of another instance was refused for it).
]]
--- @include "prefix"
--- @include "publish"
--- @include "ready"

local globalLimited = {} --- @per-call
local function slotFreed(pool)
  if announced[pool] then return end
  local limited = globalLimited[pool]
  if limited == nil then
    limited = redis.call('HEXISTS', P .. 'control', 'global:' .. pool) == 1
    globalLimited[pool] = limited
  end
  if limited and readyAny(pool) then announceReady(pool) end
end
