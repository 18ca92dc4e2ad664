--[[
  Flow control keys, their state and wakes (a task's `fk`, from its spec's flowControl): at most `par` tasks of a
  key run at once and at most `rate` start per `per` ms, across the cluster (the memory
  store's flows.ts does the same).

  flow:<key>        string the key's state packed in one integer (flowPacked): running +
                          RUN_SPAN * parallelism limit + FLAG_SPAN * (1 if it has a rate
                          limit + 2 if it has parked tasks); a claim reads its batch's keys
                          with one MGET and writes them with one MSET, a completion
                          INCRBYs -1. One key per flow key: each key read is a cache miss
                          or two, and a shared hash of a few hundred keys is a listpack,
                          scanned per field
  flowl:<key>       string "par|rate|per" (empty = no such limit: the latest submit's), read
                          by a claim only for a key with a rate limit
  flowkeys          zset  key -> its last submit: flowSweep (recoverExpired) forgets a key
                          not submitted for FLOW_IDLE_TTL_MS while nothing of it runs or
                          is parked (a claim of one of its tasks later restores the limits
                          from the task's body)
  flowstarts:<key>  zset  the key's recent starts (score = start, member = claim token),
                          trimmed to the newest `rate`; expires
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

-- A key's state is one integer: the hot paths (a claim, a completion) touch one key with
-- one command, and every part stays exact in a Lua double (< 2^53).
local RUN_SPAN = 10000000 -- running tasks and the parallelism limit each below it (1e7)
local FLAG_SPAN = RUN_SPAN * RUN_SPAN
local RATE_FLAG, PARKED_FLAG = FLAG_SPAN, 2 * FLAG_SPAN
-- A key with no parallelism limit runs at most this many at once (the field's bound).
local RUN_CAP = RUN_SPAN - 1

-- Per call: key -> {par, rate, per, run, parked, stateKey}; every change writes through.
local FLOWS = {} --- @per-call

-- Parsed flowl values, by text: keys mostly share a few (parsing costs ~1 us a key).
local LIMITS = {} --- @per-call

-- The key's state as stored in flow:<key>.
local function flowPacked(f)
  return f.run + RUN_SPAN * (f.par or 0) +
    (f.rate and RATE_FLAG or 0) + (f.parked > 0 and PARKED_FLAG or 0)
end

-- A key's state from its flow:<key> value (false: absent); rate, per and the parked count
-- are read by flowLoad when its flags say so.
local function flowState(packed, stateKey)
  local s = tonumber(packed) or 0
  local flags = math.floor(s / FLAG_SPAN)
  local par = math.floor(s / RUN_SPAN) % RUN_SPAN
  return {par = par > 0 and par or nil, rated = flags % 2 == 1, run = s % RUN_SPAN,
    parked = flags >= 2 and 1 or 0, stateKey = stateKey}
end

-- Reads the state of those of `keys` not read yet in this call with one MGET (a key listed
-- twice is read twice: cheaper than a set to drop repeats); a key with a rate limit adds
-- its flowl, one with parked tasks their count.
local function flowLoad(keys)
  local todo, names, n = {}, {}, 0
  for i = 1, #keys do
    local key = keys[i]
    if not FLOWS[key] then
      n = n + 1
      todo[n] = key
      names[n] = P .. 'flow:' .. key
    end
  end
  if n == 0 then return end
  local v = redis.call('MGET', unpack(names))
  local rated = {}
  for i = 1, n do
    local key = todo[i]
    local f = flowState(v[i], names[i])
    FLOWS[key] = f
    if f.rated then rated[#rated + 1] = key end
    if f.parked > 0 then f.parked = redis.call('ZCARD', P .. 'parked:' .. key) end
  end
  if #rated == 0 then return end
  local lnames = {}
  for i, key in ipairs(rated) do lnames[i] = P .. 'flowl:' .. key end
  local limits = redis.call('MGET', unpack(lnames))
  for i, key in ipairs(rated) do
    local text = limits[i] or ''
    local l = LIMITS[text]
    if not l then
      local _, rate, per = string.match(text, '^([^|]*)|([^|]*)|([^|]*)$')
      l = {num(rate), num(per)}
      LIMITS[text] = l
    end
    FLOWS[key].rate, FLOWS[key].per = l[1], l[2]
  end
end

local function flowOf(key)
  if not FLOWS[key] then flowLoad({key}) end
  return FLOWS[key]
end

-- The key's limits as stored in flowl:<key> ("" for none).
local function flowLimitsText(par, rate, per)
  return (par or '') .. '|' .. (rate or '') .. '|' .. (per or '')
end

-- Adds `delta` to the key's stored state (INCRBY: the reply is the new state).
local function flowAdd(key, delta)
  local f = FLOWS[key]
  return redis.call('INCRBY', f and f.stateKey or P .. 'flow:' .. key, delta)
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
  if f.run >= (f.par or RUN_CAP) then return 0, 'parallelism' end
  local tokens = flowTokens(key, f, now)
  if tokens <= 0 then return 0, 'rate' end
  return math.min((f.par or RUN_CAP) - f.run, tokens), nil
end

local MARKER_SEQ = string.format(SEQ_FORMAT, 0) --- @per-call

-- Per claim: the earliest wake of the keys it armed or found armed, and the keys it took
-- rate tokens of. The claim answers the earliest of those keys' wakes, so its worker's own
-- timer wakes a key it drained (another process's promoteDue may have armed it).
local FLOW_ARMED, FLOW_RATED = nil, {} --- @per-call

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
