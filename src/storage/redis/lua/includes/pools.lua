--[[
  Pools that ever had queued or running work (stats).
]]
--- @include "prefix"
--- @include "seq"
--- @include "values"

local usedPools = {} --- @per-call
local function usePool(pool)
  if not usedPools[pool] then
    usedPools[pool] = true
    redis.call('ZADD', P .. 'stat-pools', 'NX', text(nextSeq()), pool)
  end
end
