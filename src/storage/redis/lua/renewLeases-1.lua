--[[
  renewLeases: extends the leases a worker holds.

  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  now (epoch ms)
  ARGV[2]  workerId
  ARGV[3]  leaseMs
  ARGV[4..] task ids

  A lease is held while the task is running and claimed by workerId (cancelled, recovered
  or finished tasks are not). Returns the ids whose lease was lost.
]]
--- @include "task"

local leaseUntil = tonumber(ARGV[1]) + tonumber(ARGV[3])
local lost = {}
for i = 4, #ARGV do
  local id = ARGV[i]
  local v = redis.call('HMGET', tkey(id), 'status', 'workerId')
  if v[1] == 'running' and v[2] == ARGV[2] then
    redis.call('ZADD', P .. 'leases', leaseUntil, id)
  else
    lost[#lost + 1] = id
  end
end
return lost
