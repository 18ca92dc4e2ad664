--[[
  expireDue: the expiry duty, ends tasks not started by their expiresAt.

  FLAGS allow-oom      (runs above maxmemory: a full Redis must not refuse it)
  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  now (epoch ms)
  ARGV[2]  limit: at most this many entries of `expiries` are read
  ARGV[3]  history maxAgeMs
  ARGV[4]  history maxCount

  Reads the entries of `expiries` due at now, earliest first, and removes them; each task
  still queued, scheduled, retrying or waiting with expiresAt <= now ends `expired`
  (includes/expire.lua). Entries of tasks that started or finished since are only dropped:
  a running task is not affected (a retry puts it back in the index). Bounded: limit entries,
  and cascades bounded as in every script that ends tasks.
  Returns {expired, read}.
]]
--- @include "prefix"
--- @include "tkey"
--- @include "values"
--- @include "chunked"
--- @include "load"
--- @include "expire"
--- @include "retention"
--- @include "done"

local now = tonumber(ARGV[1])
RETENTION.maxAgeMs, RETENTION.maxCount = tonumber(ARGV[3]), tonumber(ARGV[4])
local due = redis.call('ZRANGEBYSCORE', P .. 'expiries', '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
if #due > 0 then callChunked('ZREM', P .. 'expiries', due) end
local n = 0
for _, id in ipairs(due) do
  local t = load(id)
  if t and EXPIRABLE_STATUSES[t.status] then
    local at = num(redis.call('HGET', tkey(id), 'expiresAt'))
    if at and at <= now then
      expireTask(t, now)
      n = n + 1
    end
  end
end
return done({n, #due})
