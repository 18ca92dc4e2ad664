--[[
  Events on the store's pub/sub channel (decoded by src/storage/redis/codec.ts).
]]
--- @include "prefix"

local function publish(event) redis.call('PUBLISH', P .. 'events', cjson.encode(event)) end

local announced = {} --- @per-call
local function announceReady(pool)
  if not announced[pool] then
    announced[pool] = true
    publish({kind = 'ready', pool = pool})
  end
end
