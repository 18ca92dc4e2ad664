--[[
  setPaused: pauses or resumes one pool, or every pool.

  FLAGS allow-oom      (runs above maxmemory: a full Redis must not refuse it)
  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  pool, or "" for every pool (the global flag is pool `*`)
  ARGV[2]  "1" pause, "0" resume

  Resuming every pool clears every pool's flag, `*` included. Publishes control, and on
  resume ready{pool} for every pool with a control entry so idle workers claim at once.
  Returns 0.
]]
--- @include "prefix"
--- @include "seq"
--- @include "publish"

local pool, paused = ARGV[1], ARGV[2]
local pools = P .. 'control-pools'
if pool == '' and paused == '0' then
  for _, p in ipairs(redis.call('ZRANGE', pools, 0, -1)) do
    redis.call('HSET', P .. 'control', 'paused:' .. p, '0')
  end
else
  if pool == '' then pool = '*' end
  redis.call('ZADD', pools, 'NX', nextSeq(), pool)
  redis.call('HSET', P .. 'control', 'paused:' .. pool, paused)
end
publish({kind = 'control'})
if paused == '0' then
  for _, p in ipairs(redis.call('ZRANGE', pools, 0, -1)) do
    publish({kind = 'ready', pool = p})
  end
end
return 0
