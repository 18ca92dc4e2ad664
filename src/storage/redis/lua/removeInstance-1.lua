--[[
  removeInstance: forgets an instance (it shut down).

  FLAGS allow-oom      (runs above maxmemory: a full Redis must not refuse it)
  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  instance id

  Returns 1 when it was registered, else 0.
]]
--- @include "prefix"

redis.call('HDEL', P .. 'instance-info', ARGV[1])
return redis.call('ZREM', P .. 'instances', ARGV[1])
