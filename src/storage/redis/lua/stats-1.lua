--[[
  stats: the counters behind Storage.stats(), read in one consistent snapshot.

  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV     none

  Returns {
    {status, count, ...}                 every status (from the counts hash)
    {pool, queued, running, ...}         pools that had queued or running work
    {succeeded, failedAttempts, dead, stalled, expired}    totals
    {type, {sample, ...}, ...}           duration samples per type (newest first, capped)
  }
  The figures (mean, median, percentiles) are computed by the caller. Bounded: the first
  1000 pools and the first 1000 task types (by first use) are reported.
]]
--- @include "prefix"

local counts = {}
local c = redis.call('HMGET', P .. 'counts', unpack(ALL_STATUSES))
for i, s in ipairs(ALL_STATUSES) do
  counts[#counts + 1] = s
  counts[#counts + 1] = tonumber(c[i] or '0')
end
local pools = {}
for _, pool in ipairs(redis.call('ZRANGE', P .. 'stat-pools', 0, 999)) do
  pools[#pools + 1] = pool
  -- Parked tasks (held back by their flow key) are queued too.
  pools[#pools + 1] = redis.call('ZCARD', P .. 'ready:' .. pool) +
    (tonumber(redis.call('HGET', P .. 'flowparked', pool)) or 0)
  pools[#pools + 1] = tonumber(redis.call('HGET', P .. 'running', pool) or '0')
end
local totals = redis.call('HMGET', P .. 'totals', 'succeeded', 'failedAttempts', 'dead',
  'stalled', 'expired')
for i = 1, 5 do totals[i] = tonumber(totals[i] or '0') end
local durations = {}
for _, type in ipairs(redis.call('ZRANGE', P .. 'types', 0, 999)) do
  durations[#durations + 1] = type
  durations[#durations + 1] = redis.call('LRANGE', P .. 'durations:' .. type, 0, -1)
end
return {counts, pools, totals, durations}
