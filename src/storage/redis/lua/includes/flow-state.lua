--[[
  Flow control keys, their state and wakes (a task's `fk`, from its spec's flowControl): at most `par` tasks of a
  key run at once and at most `rate` start per `per` ms, across the cluster (the memory
  store's flows.ts does the same).

  flowlimits        hash  key -> "par|rate|per" (empty = no such limit: the latest submit's)
  flowrp            hash  key -> rp = running + PARKED_UNIT * parked tasks of the key
                          (two hashes for every key, not one per key: a claim reads the
                          keys of its whole batch with one HMGET each, and writes once)
  flowkeys          zset  key -> its last submit: flowSweep (recoverExpired) forgets a key
                          not submitted for FLOW_IDLE_TTL_MS while nothing of it runs or
                          is parked (a claim of one of its tasks later restores the limits
                          from the task's body)
  flowstarts:<key>  zset  the key's recent starts (score = start, member = claim token),
                          trimmed to the window and to the newest `rate`; expires
                          FLOW_STARTS_GRACE_MS after `per` (Redis's clock may run ahead)
  parked:<key>      zset  its queued tasks held back by a limit, with the score and member
                          they had in ready:<pool> (so they go back to the same place)
  flowparked        hash  pool -> its parked tasks (they count as queued)
  flowwakes         zset  key -> when a rate-parked key gets its next token; a claim
                          unparks due keys first (flowDue)
  delayed           zset  MARKER_SEQ .. '~' .. key at the same time: the durable backstop
                          (promoteDue unparks it, and every wheel arms for it)

  A parked task has `wf` (waitingFor: parallelism | rate) on its hash. Every parked key has
  a wake coming: the end of one of its running tasks (parallelism), or its marker.
  stats-1.lua reads the busy keys (running or parked) among the newest of flowkeys; a task's
  pool-level waitingFor is derived when read (src/client/pool-waits.ts), never stored.
]]
--- @include "prefix"
--- @include "values"
--- @include "publish"
--- @include "start-log"

-- Running and parked tasks of a key share one counter, `rp` = running + PARKED_UNIT *
-- parked, so the hot paths (a claim, a completion) touch the key with one HINCRBY.
local PARKED_UNIT = 1048576 -- 2^20 > MAX_FLOW_PARALLELISM

-- Per call: key -> {par, rate, per, run, parked}; every change below writes through.
local FLOWS = {}

-- Parsed flowlimits values, by text: keys mostly share a few (parsing costs ~1 us a key).
local LIMITS = {}

-- A key's state from its flowlimits and flowrp values (false: absent).
local function flowState(limits, rp)
  limits = limits or ''
  local l = LIMITS[limits]
  if not l then
    local par, rate, per = string.match(limits, '^([^|]*)|([^|]*)|([^|]*)$')
    l = {num(par), num(rate), num(per)}
    LIMITS[limits] = l
  end
  rp = tonumber(rp) or 0
  return {par = l[1], rate = l[2], per = l[3], run = rp % PARKED_UNIT,
    parked = math.floor(rp / PARKED_UNIT)}
end

-- Reads the state of those of `keys` not read yet in this call: one HMGET per hash.
local function flowLoad(keys)
  local todo, seen = {}, {}
  for _, key in ipairs(keys) do
    if not FLOWS[key] and not seen[key] then
      seen[key] = true
      todo[#todo + 1] = key
    end
  end
  if #todo == 0 then return end
  local limits = redis.call('HMGET', P .. 'flowlimits', unpack(todo))
  local rps = redis.call('HMGET', P .. 'flowrp', unpack(todo))
  for i, key in ipairs(todo) do FLOWS[key] = flowState(limits[i], rps[i]) end
end

local function flowOf(key)
  if not FLOWS[key] then flowLoad({key}) end
  return FLOWS[key]
end

-- The key's limits as stored in flowlimits ("" for none).
local function flowLimitsText(par, rate, per)
  return (par or '') .. '|' .. (rate or '') .. '|' .. (per or '')
end

-- Adds `delta` to the key's rp (HINCRBY: the reply is the new rp).
local function flowAdd(key, delta)
  return redis.call('HINCRBY', P .. 'flowrp', key, delta)
end

-- The key's rate tokens at `now` (math.huge: no rate), after trimming its start log.
local function flowTokens(key, f, now)
  if not f.rate then return math.huge end
  if f.tokensAt ~= now then
    f.tokens, f.tokensAt = logTokens(P .. 'flowstarts:' .. key, f.rate, f.per, now), now
  end
  return f.tokens
end

-- How many more tasks of the key may start now, and the limit that binds when none may.
local function flowRoom(key, f, now)
  if f.par and f.run >= f.par then return 0, 'parallelism' end
  local tokens = flowTokens(key, f, now)
  if tokens <= 0 then return 0, 'rate' end
  return math.min(f.par and (f.par - f.run) or math.huge, tokens), nil
end

local MARKER_SEQ = string.format(SEQ_FORMAT, 0)

-- Per claim: the earliest wake of the keys it armed or found armed, and the keys it took
-- rate tokens of. The claim answers the earliest of those keys' wakes, so its worker's own
-- timer wakes a key it drained (another process's promoteDue may have armed it).
local FLOW_ARMED, FLOW_RATED = nil, {}

-- The earliest such wake since the last call of this (nil: none), and forgets them.
local function flowArmed()
  for key in pairs(FLOW_RATED) do
    local at = FLOWS[key].parked > 0 and tonumber(redis.call('ZSCORE', P .. 'flowwakes', key))
    if at and (not FLOW_ARMED or at < FLOW_ARMED) then FLOW_ARMED = at end
  end
  local at = FLOW_ARMED
  FLOW_ARMED, FLOW_RATED = nil, {}
  return at
end

-- Arms the key's wake for `at`: in flowwakes (claims take due ones: the worker that parked
-- the key claims again then) and as a marker in `delayed` (promoteDue: the durable
-- backstop every process arms its wheel for). An earlier wake stays (it re-arms).
local function flowWakeAt(key, at)
  local current = redis.call('ZSCORE', P .. 'flowwakes', key)
  local due = current and math.min(tonumber(current), at) or at
  if not FLOW_ARMED or due < FLOW_ARMED then FLOW_ARMED = due end
  if current and tonumber(current) <= at then return end
  redis.call('ZADD', P .. 'flowwakes', text(at), key)
  redis.call('ZADD', P .. 'delayed', text(at), MARKER_SEQ .. '~' .. key)
  publish({kind = 'delayed', id = '~' .. key, runAt = at})
end

-- The key's wake is taken (both entries go).
local function flowWoken(key)
  redis.call('ZREM', P .. 'flowwakes', key)
  redis.call('ZREM', P .. 'delayed', MARKER_SEQ .. '~' .. key)
end

-- When the key's next token frees: its oldest logged start + per (now + per when the log
-- is empty: tokens handed out now start no earlier).
local function flowNextToken(key, f, now)
  return logNextAt(P .. 'flowstarts:' .. key, f.per, now)
end
