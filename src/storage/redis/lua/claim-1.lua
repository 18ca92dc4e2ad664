--[[
  claim: takes queued tasks under a lease (batched claim), for one or more pools at once.

  FLAGS allow-oom      (runs above maxmemory: a full Redis must not refuse it)
  KEYS[1]  key prefix `<name>:{<tag>}:` (derives ready:<pool>, leases, ...: includes/prefix.lua)
  ARGV     one or more claims of 5 entries each, applied in order:
    ARGV[i]      now (epoch ms)
    ARGV[i + 1]  pool
    ARGV[i + 2]  max (>= 1)
    ARGV[i + 3]  workerId
    ARGV[i + 4]  leaseMs

  One call serves the claims of several pools issued in the same tick (src/storage/redis/
  claims.ts), so an idle worker's backstop poll costs one command however many pools it has.
  Nothing is claimed for a pool while it or every pool (`*`) is paused. Highest priority
  first, FIFO among equals. Each task becomes running with attempt + 1, startedAt = now,
  progress cleared, the error of the previous attempt kept, and a lease until now + leaseMs.

  Cluster-wide limits (control hash, setPoolLimits-1.lua) cap the take: `global:<pool>`
  minus the pool's `running` count, and `rate:<pool>` ("<max>/<perMs>") minus the starts
  logged in starts:<pool> inside (now - perMs, now]. The log is trimmed here to that window
  and to its newest max entries (bounded; older entries can never matter again), and each
  claimed task adds its start (score now, member its token). When the rate limit held back
  work still queued, the claim's list ends with one integer after the tasks: the time its
  next start is allowed (the oldest logged start + perMs). Pools without limits pay one
  HMGET, as before.

  Returns one list per claim, in ARGV order, of the claimed tasks, each as the values of
  CLAIMED_FIELDS (nil for an absent field) with the id in place of status, the new attempt
  in place of the old, and the claim's token (its claimSeq, which every settle of this
  attempt must present) in place of progress: a claimed task is decoded by position
  (CLAIMED_FIELDS comes from src/storage/redis/claims.ts), which halves the reply and spares
  the worker one field-name string per value. The fields the claim itself sets (status,
  pool, startedAt, workerId, progress) are not sent back.
]]
--- @include "prefix"
--- @include "tkey"
--- @include "values"
--- @include "chunked"
--- @include "bump"
--- @include "pools"
--- @include "done"

-- CLAIMED_FIELDS are read before the task is marked running; the id, new attempt and token
-- then replace `status`, `attempt` and `progress` (cleared by the claim).
local STATUS, ATTEMPT, PROGRESS = CLAIMED_AT.status, CLAIMED_AT.attempt, CLAIMED_AT.progress

-- The rate limit's tokens left at `now` ("<max>/<perMs>"), after trimming its start log.
local function rateTokens(starts, rate, now)
  local rateMax, per = string.match(rate, '^(%d+)/(%d+)$')
  rateMax, per = tonumber(rateMax), tonumber(per)
  redis.call('ZREMRANGEBYSCORE', starts, '-inf', text(now - per))
  redis.call('ZREMRANGEBYRANK', starts, 0, -(rateMax + 1))
  return rateMax - redis.call('ZCARD', starts), rateMax, per
end

local function take(now, pool, max, workerId, leaseUntil)
  -- ZRANGE + ZREM rather than ZPOPMIN: a popped score is formatted as text, which costs more
  -- than the second call.
  local ready = P .. 'ready:' .. pool
  if max <= 0 then return {} end
  local popped = redis.call('ZRANGE', ready, 0, max - 1)
  if #popped == 0 then return {} end
  callChunked('ZREM', ready, popped)
  local out, leases = {}, {}
  local claimSeq = redis.call('INCRBY', P .. 'seq', #popped) - #popped
  for i = 1, #popped do
    local id = string.sub(popped[i], SEQ_WIDTH + 1)
    local k = tkey(id)
    local v = redis.call('HMGET', k, unpack(CLAIMED_FIELDS))
    -- Members of ready:<pool> are queued tasks; the check guards against a corrupted set.
    if v[STATUS] == 'queued' then
      local attempt, token = tonumber(v[ATTEMPT]) + 1, text(claimSeq + i)
      redis.call('HSET', k, 'status', 'running', 'attempt', text(attempt), 'startedAt', now,
        'workerId', workerId, 'claimSeq', token)
      if v[PROGRESS] then redis.call('HDEL', k, 'progress') end
      leases[#leases + 1] = leaseUntil
      leases[#leases + 1] = id
      v[STATUS], v[ATTEMPT], v[PROGRESS] = id, attempt, token
      out[#out + 1] = v
    end
  end
  if #out > 0 then
    -- One ZADD for the batch: every redis.call from Lua has a fixed cost.
    callChunked('ZADD', P .. 'leases', leases)
    bump(P .. 'counts', 'queued', -#out)
    bump(P .. 'counts', 'running', #out)
    bump(P .. 'running', pool, #out)
    usePool(pool)
  end
  return out
end

local function claim(now, pool, max, workerId, leaseUntil)
  local c = redis.call('HMGET', P .. 'control', 'paused:*', 'paused:' .. pool, 'global:' .. pool,
    'rate:' .. pool)
  if c[1] == '1' or c[2] == '1' then return {} end
  if not (c[3] or c[4]) then return take(now, pool, max, workerId, leaseUntil) end
  if c[3] then
    -- Counters are written by done(): an earlier claim of this call is still only in BUMPS.
    local claimedHere = (BUMPS[P .. 'running'] or {})[pool] or 0
    local running = (tonumber(redis.call('HGET', P .. 'running', pool)) or 0) + claimedHere
    max = math.min(max, tonumber(c[3]) - running)
  end
  if not c[4] then return take(now, pool, max, workerId, leaseUntil) end
  local starts, at = P .. 'starts:' .. pool, tonumber(now)
  local tokens, rateMax, per = rateTokens(starts, c[4], at)
  local rateBound = tokens < max
  local out = take(now, pool, math.min(max, tokens), workerId, leaseUntil)
  if #out > 0 then
    local log = {}
    for i = 1, #out do
      log[#log + 1] = now
      log[#log + 1] = out[i][PROGRESS]
    end
    callChunked('ZADD', starts, log)
  end
  if rateBound and redis.call('EXISTS', P .. 'ready:' .. pool) == 1 and
      redis.call('ZCARD', starts) >= rateMax then
    out[#out + 1] = tonumber(redis.call('ZRANGE', starts, 0, 0, 'WITHSCORES')[2]) + per
  end
  return out
end

local replies = {}
for i = 1, #ARGV, 5 do
  replies[#replies + 1] = claim(ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2]), ARGV[i + 3],
    text(tonumber(ARGV[i]) + tonumber(ARGV[i + 4])))
end
return done(replies)
