--[[
  initLayout: stamps the data layout on a store that has none (RedisStorage.init(), after
  any migrations: src/storage/redis/migrations.ts).

  FLAGS allow-oom      (a few bytes, once: a full Redis must not stop a node from starting)
  KEYS[1]  key prefix `<name>:{<tag>}:` (derives meta)
  ARGV     none

  The layout guard every script runs (includes/prefix.lua) refuses a store in another
  layout first; a store without meta holds UNVERSIONED_LAYOUT, so this stamps it LAYOUT.
  Returns 1 when it stamped the layout, 0 when the store had it.
]]
--- @include "prefix"

return redis.call('HSETNX', P .. 'meta', 'layout', LAYOUT)
