--[[
  setPoolLimits: sets or removes a pool's cluster-wide limits (read by claim-1.lua).

  FLAGS allow-oom      (runs above maxmemory: a full Redis must not refuse it)
  KEYS[1]  key prefix `<name>:{<tag>}:` (derives control, control-pools, starts:<pool>)
  ARGV[1]  pool
  ARGV[2]  "1": set each given field only where none is stored (HSETNX: a worker's start-up
           never undoes an operator's change; a removal then changes nothing), "0": set it
  ARGV[3]  globalConcurrency: "" leave as is, "-" remove, else the limit (>= 1)
  ARGV[4]  rateLimit: "" leave as is, "-" remove, else "<max>/<perMs>"

  Keys: control hash {global:<pool> = n, rate:<pool> = "<max>/<perMs>"}, absent = no limit;
  control-pools zset (pools with any control); removing a rate limit deletes its start log
  (starts:<pool>). Publishes control, and ready for the pool (a raised limit may let queued
  work start). Returns 0.
]]
--- @include "prefix"
--- @include "seq"
--- @include "publish"

local pool, ifAbsent = ARGV[1], ARGV[2] == '1'
local control = P .. 'control'
redis.call('ZADD', P .. 'control-pools', 'NX', nextSeq(), pool)
for i, field in ipairs({'global:' .. pool, 'rate:' .. pool}) do
  local value = ARGV[2 + i]
  if value == '-' then
    if not ifAbsent then
      redis.call('HDEL', control, field)
      if i == 2 then redis.call('DEL', P .. 'starts:' .. pool) end
    end
  elseif value ~= '' then
    redis.call(ifAbsent and 'HSETNX' or 'HSET', control, field, value)
  end
end
publish({kind = 'control'})
announceReady(pool)
return 0
