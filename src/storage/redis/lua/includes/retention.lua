--[[
  Retention, applied once by done(): the newest attempts in history (and DURATION_SAMPLES
  per type), and finished task rows.
]]
--- @include "prefix"
--- @include "tkey"
--- @include "values"
--- @include "bump"
--- @include "done"
--- @include "all-index"

-- Scripts that finish tasks set these from their ARGV; the default keeps everything.
local RETENTION = {maxAgeMs = math.huge, maxCount = math.huge} --- @per-call
-- The latest `now` of the script's transitions, and what they did that retention trims.
local NOW = 0 --- @per-call
local recorded, finishedAny, sampledTypes = false, false, {} --- @per-call

-- Whether the attempt of stream entry `entry` is past maxAgeMs at `now`.
local function tooOld(entry, now)
  local ok, a = pcall(cjson.decode, entry[2][2])
  local at = ok and type(a) == 'table' and tonumber(a[ATTEMPT_AT.finishedAt]) or nil
  return at ~= nil and now - at > RETENTION.maxAgeMs
end

-- History retention: the newest maxCount attempts, none older than maxAgeMs.
local function trimHistory(now)
  local h = P .. 'attempts'
  if redis.call('XLEN', h) > RETENTION.maxCount then
    redis.call('XTRIM', h, 'MAXLEN', RETENTION.maxCount)
  end
  -- Oldest first, at most 1000 per call (later calls continue); mostly one read.
  local oldest = redis.call('XRANGE', h, '-', '+', 'COUNT', 1)
  if #oldest == 0 or not tooOld(oldest[1], now) then return end
  local page = redis.call('XRANGE', h, '-', '+', 'COUNT', 1000)
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
  for type in pairs(sampledTypes) do
    redis.call('LTRIM', P .. 'durations:' .. type, 0, DURATION_SAMPLES - 1)
  end
end

-- Deletes finished (succeeded/cancelled) rows beyond maxCount or older than maxAgeMs,
-- oldest finished first; dead rows are kept. Bounded per call (1000 rows). Once retention
-- is full every finished task evicts one row, so the rows of one call are removed with one
-- ZREM per index (per bucket of `all`) and one DEL: per-row calls made this the costliest
-- part of completing.
local FINISHED_STATUS = {s = 'succeeded', c = 'cancelled'}

local function pruneFinished(now)
  local f = P .. 'finished'
  local size = redis.call('ZCARD', f)
  local members, ids, orders, dels = {}, {}, {}, {}
  local function drop(member)
    local initial, order, id = parseFinished(member)
    local status = FINISHED_STATUS[initial]
    members[#members + 1] = member
    ids[#ids + 1] = id
    orders[#orders + 1] = order
    dels[#dels + 1] = tkey(id)
    dels[#dels + 1] = P .. 'children:' .. id
    dels[#dels + 1] = P .. 'logs:' .. id
    bump(P .. 'counts', status, -1)
    if INDEXED_STATUSES[status] then redis.call('ZREM', P .. 'status:' .. status, id) end
  end
  -- Rows beyond maxCount go whatever their age.
  local excess = math.min(size - RETENTION.maxCount, 1000)
  if excess > 0 then
    for _, member in ipairs(redis.call('ZRANGE', f, 0, excess - 1)) do drop(member) end
  end
  -- Then rows past maxAgeMs, oldest first, until the first younger one.
  while #ids < 1000 and #ids < size do
    local member = redis.call('ZRANGE', f, #ids, #ids)[1]
    local _, _, id = parseFinished(member)
    local finishedAt = num(redis.call('HGET', tkey(id), 'finishedAt'))
    if now - (finishedAt or now) <= RETENTION.maxAgeMs then break end
    drop(member)
  end
  if #ids == 0 then return end
  redis.call('ZREM', f, unpack(members))
  unindexAll(ids, orders)
  redis.call('DEL', unpack(dels))
end

applyRetention = function()
  if finishedAny then pruneFinished(NOW) end
  if recorded then trimHistory(NOW) end
end
