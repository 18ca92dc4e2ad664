--[[
  setProgress: records handler progress while the worker holds the lease.

  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  task id
  ARGV[2]  workerId
  ARGV[3]  progress, already clamped to 0..100 by the caller

  Returns 1 when stored, 0 when the lease is not held.
]]
--- @include "task"

if not owned(ARGV[1], ARGV[2]) then return 0 end
redis.call('HSET', tkey(ARGV[1]), 'progress', ARGV[3])
return 1
