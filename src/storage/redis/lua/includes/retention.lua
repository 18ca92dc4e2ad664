--[[
  Retention, applied once by done(): the newest attempts in history (and DURATION_SAMPLES
  per type), and finished task rows.
]]
--- @include "prefix"
--- @include "tkey"
--- @include "values"
--- @include "bump"
--- @include "done"
--- @include "index-buckets"
--- @include "retained"
--- @include "attempt-entry"

-- Scripts that finish tasks set these from their ARGV; the default keeps everything.
local RETENTION = {maxAgeMs = math.huge, maxCount = math.huge} --- @per-call
-- The latest `now` of the script's transitions, and what they did that retention trims.
local NOW = 0 --- @per-call
local recorded, finishedAny, sampledTypes = false, false, {} --- @per-call
-- The last duration sample's index, as the text LTRIM takes.
local DURATION_LAST_TEXT = (DURATION_SAMPLES - 1) .. ''

-- Whether the attempt of stream entry `entry` is past maxAgeMs at `now`.
local function tooOld(entry, now)
  local ok, a = pcall(attemptValues, entry[2][2])
  local at = ok and type(a) == 'table' and tonumber(a[ATTEMPT_AT.finishedAt]) or nil
  return at ~= nil and now - at > RETENTION.maxAgeMs
end

-- History retention: the newest maxCount attempts, none older than maxAgeMs; and each
-- type's newest DURATION_SAMPLES durations, on every call that filed some (trimmed only
-- when attempts aged out, the lists, and the stats() that reads them, grew with every task).
local function trimHistory(now)
  for type in pairs(sampledTypes) do
    redis.call('LTRIM', P .. 'durations:' .. type, '0', DURATION_LAST_TEXT)
  end
  local h = P .. 'attempts'
  if redis.call('XLEN', h) > RETENTION.maxCount then
    redis.call('XTRIM', h, 'MAXLEN', RETENTION.maxCount)
  end
  -- Oldest first, at most 1000 per call (later calls continue); mostly one read.
  local oldest = redis.call('XRANGE', h, '-', '+', 'COUNT', '1')
  if #oldest == 0 or not tooOld(oldest[1], now) then return end
  local page = redis.call('XRANGE', h, '-', '+', 'COUNT', '1000')
  local keep = nil
  for _, entry in ipairs(page) do
    if not tooOld(entry, now) then
      keep = entry[1]
      break
    end
  end
  if keep then
    redis.call('XTRIM', h, 'MINID', keep)
  else
    redis.call('XTRIM', h, 'MINID', text(tonumber(string.match(page[#page][1], '^%d+')) + 1))
  end
end

-- Deletes finished (succeeded/cancelled) rows beyond maxCount or older than maxAgeMs,
-- oldest finished first; dead rows are kept. Bounded per call (1000 rows). Once retention
-- is full every finished task evicts one row, so the rows of one call are removed with one
-- trim of `retained`, one ZREM per bucket of `all` and one DEL: per-row calls made this the
-- costliest part of completing.
local FINISHED_STATUS = {s = 'succeeded', c = 'cancelled'}

local function pruneFinished(now)
  local r = P .. 'retained'
  local size = redis.call('XLEN', r)
  local ids, orders, dels, last = {}, {}, {}, nil
  local function drop(entry)
    local initial, order, id = parseFinished(entry[2][2])
    local status = FINISHED_STATUS[initial]
    last = entry[1]
    ids[#ids + 1] = id
    orders[#orders + 1] = order
    dels[#dels + 1] = tkey(id)
    dels[#dels + 1] = P .. 'children:' .. id
    dels[#dels + 1] = P .. 'logs:' .. id
    bump(COUNTS, status, -1)
    if INDEXED_STATUSES[status] then redis.call('ZREM', P .. 'status:' .. status, id) end
  end
  -- Rows beyond maxCount go whatever their age.
  local excess = math.min(size - RETENTION.maxCount, 1000)
  if excess > 0 then
    for _, entry in ipairs(redis.call('XRANGE', r, '-', '+', 'COUNT', text(excess))) do drop(entry) end
  end
  -- Then rows past maxAgeMs, oldest first, until the first younger one: mostly one read.
  local want = 1
  while #ids < 1000 and #ids < size do
    local from = last and ('(' .. last) or '-'
    local page = redis.call('XRANGE', r, from, '+', 'COUNT', text(math.min(want, 1000 - #ids)))
    if #page == 0 then break end
    local young = false
    for _, entry in ipairs(page) do
      local _, _, id = parseFinished(entry[2][2])
      local finishedAt = num(redis.call('HGET', tkey(id), 'finishedAt'))
      if now - (finishedAt or now) <= RETENTION.maxAgeMs then
        young = true
        break
      end
      drop(entry)
    end
    if young then break end
    want = 64
  end
  if #ids == 0 then return end
  -- The dropped entries are the stream's oldest: one trim takes them.
  redis.call('XTRIM', r, 'MINID', string.match(last, '^%d+') .. '-1')
  unindexAll(ids, orders)
  redis.call('DEL', unpack(dels))
end

applyRetention = function()
  if finishedAny then pruneFinished(NOW) end
  if recorded then trimHistory(NOW) end
end
