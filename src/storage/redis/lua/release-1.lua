--[[
  release: hands back claimed tasks that never started (graceful shutdown).

  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  now (epoch ms)
  ARGV[2]  workerId
  ARGV[3..] task ids

  Each task still held by workerId is queued again at the back of its priority, with its
  attempt count restored and startedAt cleared. Returns how many were released.
]]
--- @include "task"

local now = tonumber(ARGV[1])
local n = 0
for i = 3, #ARGV do
  local t = owned(ARGV[i], ARGV[2])
  if t then
    redis.call('HDEL', tkey(t.id), 'startedAt')
    move(t, 'queued', now, {'attempt', t.attempt - 1})
    n = n + 1
  end
end
return done(n)
