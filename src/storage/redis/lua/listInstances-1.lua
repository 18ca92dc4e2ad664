--[[
  listInstances: the live instances, in registration order; forgets expired ones.

  FLAGS allow-oom      (a read: a full Redis still answers it; as a function, a script
                       without flags would be refused there as a possible writer)
  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  now (epoch ms)

  An instance has expired when its expiresAt < now. Returns the info JSON of each live one.
]]
--- @include "prefix"

local now = tonumber(ARGV[1])
local out = {}
for _, id in ipairs(redis.call('ZRANGE', P .. 'instances', 0, -1)) do
  local v = redis.call('HGET', P .. 'instance-info', id)
  local sep = v and string.find(v, '|', 1, true)
  if sep and tonumber(string.sub(v, 1, sep - 1)) >= now then
    out[#out + 1] = string.sub(v, sep + 1)
  else
    redis.call('ZREM', P .. 'instances', id)
    redis.call('HDEL', P .. 'instance-info', id)
  end
end
return out
