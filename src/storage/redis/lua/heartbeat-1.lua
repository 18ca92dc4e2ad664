--[[
  heartbeat: registers or refreshes a live instance.

  FLAGS allow-oom      (runs above maxmemory: a full Redis must not refuse it)
  KEYS[1]  key prefix `<name>:{<tag>}:` (derives instances, instance-info)
  ARGV[1]  instance id
  ARGV[2]  expiresAt = now + ttlMs (epoch ms)
  ARGV[3]  the instance info as JSON (lastSeen = now already set)

  Keys: instances zset (score = first registration order); instance-info hash
  id -> "<expiresAt>|<json>". Expiry is judged against the caller's clock, not Redis's.
  Returns 0.
]]
--- @include "prefix"
--- @include "seq"

redis.call('ZADD', P .. 'instances', 'NX', nextSeq(), ARGV[1])
redis.call('HSET', P .. 'instance-info', ARGV[1], ARGV[2] .. '|' .. ARGV[3])
return 0
