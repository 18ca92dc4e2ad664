--[[
  setPoolSize: sets a pool's cluster-wide size.

  FLAGS allow-oom      (runs above maxmemory: a full Redis must not refuse it)
  KEYS[1]  key prefix `<name>:{<tag>}:` (derives control, control-pools)
  ARGV[1]  pool
  ARGV[2]  size, or "" to go back to each instance's configured size

  Keys: control hash {size:<pool>, paused:<pool> = "1"|"0"}; control-pools zset (pools with
  any control, in first-use order). Publishes control. Returns 0.
]]
--- @include "prefix"
--- @include "seq"
--- @include "publish"

local pool = ARGV[1]
redis.call('ZADD', P .. 'control-pools', 'NX', nextSeq(), pool)
if ARGV[2] == '' then
  redis.call('HDEL', P .. 'control', 'size:' .. pool)
else
  redis.call('HSET', P .. 'control', 'size:' .. pool, ARGV[2])
end
publish({kind = 'control'})
return 0
