--[[
  renewLeases: extends the leases a worker holds.

  FLAGS allow-oom      (runs above maxmemory: a full Redis must not refuse it)
  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  now (epoch ms)
  ARGV[2]  workerId
  ARGV[3]  leaseMs
  ARGV[4..] pairs (task id, claim token)

  A lease is held while the task is running under that claim of workerId (cancelled,
  recovered, claimed again or finished tasks are not). Returns the ids whose lease was lost.
]]
--- @include "prefix"
--- @include "tkey"
--- @include "values"
--- @include "chunked"

local leaseUntil = text(tonumber(ARGV[1]) + tonumber(ARGV[3]))
local lost, renewed = {}, {}
for i = 4, #ARGV, 2 do
  local id = ARGV[i]
  local v = redis.call('HMGET', tkey(id), 'status', 'workerId', 'claimSeq')
  if v[1] == 'running' and v[2] == ARGV[2] and v[3] == ARGV[i + 1] then
    renewed[#renewed + 1] = leaseUntil
    renewed[#renewed + 1] = id
  else
    lost[#lost + 1] = id
  end
end
if #renewed > 0 then callChunked('ZADD', P .. 'leases', renewed) end
return lost
