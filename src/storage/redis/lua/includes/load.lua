--[[
  Loading the fields of a task that transitions read.
]]
--- @include "tkey"
--- @include "values"

-- Hash reads cost per field inside Lua, so a running task (complete, fail: the hot path)
-- loads only what ending an attempt needs; `order` and `seq` are fetched when filing needs
-- them. Lists start with `status`: an absent status means an absent task.
local RUNNING_FIELDS = {'status', 'workerId', 'type', 'pool', 'attempt', 'startedAt', 'key',
  'children', 'maxRetries', 'claimSeq', 'fk', 'cb'}
local FIELDS = {'status', 'workerId', 'type', 'pool', 'attempt', 'startedAt', 'key',
  'children', 'maxRetries', 'priority', 'seq', 'order', 'runAt', 'claimSeq', 'fk', 'cb'}

local function isOne(v) return v == '1' end
-- Left out of the hash at their default (insert.lua).
local function num0(v) return num(v) or 0 end
local function poolOf(v) return v or DEFAULT_POOL end
-- Absent is false, not nil: finish() knows the field was read (none: no callback).
local function loaded(v) return v or false end
-- How each loaded field is read; a field not listed stays text (absent: nil).
local READ = {
  workerId = str, pool = poolOf, attempt = num0, startedAt = num, key = str, children = isOne,
  maxRetries = num0, priority = num0, seq = num, order = num, runAt = num, claimSeq = str,
  cb = loaded,
}

local function load(id, fields)
  fields = fields or FIELDS
  local v = redis.call('HMGET', tkey(id), unpack(fields))
  if not v[1] then return nil end
  local t = {id = id}
  for i, field in ipairs(fields) do
    local read = READ[field]
    if read then t[field] = read(v[i]) else t[field] = str(v[i]) end
  end
  return t
end

-- The fields a filing step needs that a light load skipped, read as load() reads them.
local function need(t, field)
  if t[field] == nil then t[field] = (READ[field] or str)(redis.call('HGET', tkey(t.id), field)) end
  return t[field]
end
