--[[
  stats: the counters behind Storage.stats(), read in one consistent snapshot.

  FLAGS allow-oom      (a read: a full Redis still answers it; as a function, a script
                       without flags would be refused there as a possible writer)
  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV     none

  Returns {
    {status, count, ...}                 every status (from the counts hash)
    {pool, queued, running, parked, ...} pools that had queued or running work
    {succeeded, failedAttempts, dead, stalled, expired}    totals
    {type, {sample, ...}, ...}           duration samples per type (newest first, capped)
    {key, par, rate, per, running, parked, ...}   busy flow keys ('' = no such limit)
  }
  The figures (mean, median, percentiles) are computed by the caller. Bounded: the first
  1000 pools and the first 1000 task types (by first use) are reported; busy flow keys
  (running or parked work) are looked for among the FLOW_KEYS_SCAN last submitted, newest
  first, at most FLOW_KEYS_LISTED reported.
]]
--- @include "flow-state"

local counts = {}
local c = redis.call('HMGET', COUNTS, unpack(ALL_STATUSES))
for i, s in ipairs(ALL_STATUSES) do
  counts[#counts + 1] = s
  counts[#counts + 1] = tonumber(c[i] or '0')
end
local pools = {}
for _, pool in ipairs(redis.call('ZRANGE', P .. 'stat-pools', 0, 999)) do
  pools[#pools + 1] = pool
  -- Parked tasks (held back by their flow key) are queued too.
  local parked = tonumber(redis.call('HGET', P .. 'flowparked', pool)) or 0
  pools[#pools + 1] = (tonumber(redis.call('HGET', QUEUEDN, pool)) or 0) + parked
  pools[#pools + 1] = tonumber(redis.call('HGET', P .. 'running', pool) or '0')
  pools[#pools + 1] = parked
end
local totals = redis.call('HMGET', P .. 'totals', 'succeeded', 'failedAttempts', 'dead',
  'stalled', 'expired')
for i = 1, 5 do totals[i] = tonumber(totals[i] or '0') end
local durations = {}
for _, type in ipairs(redis.call('ZRANGE', P .. 'types', 0, 999)) do
  durations[#durations + 1] = type
  durations[#durations + 1] = redis.call('LRANGE', P .. 'durations:' .. type, 0, -1)
end
local busy = {}
local newest = redis.call('ZREVRANGE', P .. 'flowkeys', 0, FLOW_KEYS_SCAN - 1)
flowLoad(newest)
for _, key in ipairs(newest) do
  local f = FLOWS[key]
  if f.run > 0 or f.parked > 0 then
    for _, v in ipairs({key, f.par or '', f.rate or '', f.per or '', f.run, f.parked}) do
      busy[#busy + 1] = v
    end
    if #busy >= 6 * FLOW_KEYS_LISTED then break end
  end
end
return {counts, pools, totals, durations, busy}
