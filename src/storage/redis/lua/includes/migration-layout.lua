--[[
  The layout stamp as migrations (lua/migrations/) read and write it: a migration runs only
  while the store holds the layout it migrates from, and its last write stamps the layout it
  migrates to (src/storage/redis/migrations.ts).
]]
--- @include "facts"

-- The layout the store under prefix `p` holds (one written before layouts had a version: 1).
local function storedLayout(p)
  return redis.call('HGET', p .. 'meta', 'layout') or UNVERSIONED_LAYOUT
end

-- Stamps layout `to` under prefix `p`: a migration's last write.
local function stampLayout(p, to)
  redis.call('HSET', p .. 'meta', 'layout', to)
end
