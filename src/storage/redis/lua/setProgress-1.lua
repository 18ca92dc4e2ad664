--[[
  setProgress: records handler progress while the worker holds the lease.

  FLAGS allow-oom      (runs above maxmemory: a full Redis must not refuse it)
  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  task id
  ARGV[2]  workerId
  ARGV[3]  claim token
  ARGV[4]  progress, already clamped to 0..100 by the caller
  ARGV[5]  now (epoch ms)

  Returns 1 when stored (and a `progress` task event recorded), 0 when the lease is not held.
]]
--- @include "tkey"
--- @include "owned"
--- @include "task-events"
--- @include "done"

local t = owned(ARGV[1], ARGV[2], ARGV[3])
if not t then return 0 end
redis.call('HSET', tkey(ARGV[1]), 'progress', ARGV[4])
taskEvent('progress', t.id, t.type, t.pool, ARGV[5], ARGV[4])
return done(1)
