--[[
  enqueue: stores a batch of new tasks, all or none.

  KEYS[1]  key prefix `<name>:{<tag>}:`; every other key derives from it (includes/prefix.lua)
  ARGV[1]  now (epoch ms)
  ARGV[2]  maxUnfinished, or "" for no limit
  ARGV[3]  number of tasks N
  ARGV[4..] N tasks, each encoded as in includes/insert.lua

  Checks every task before writing anything, in batch order: an id in use (or repeated in the
  batch) or a `key` held by an unfinished task (or earlier in the batch) stops at once; unknown
  parents are collected over the whole batch; capacity comes last.

  Returns
    {Code.ok, status_1, cancelReason_1, ..., status_N, cancelReason_N}  stored ("" = none)
    {Code.idInUse, id}                 id already in use
    {Code.keyHeld, key, holderId}      key held ("" when the holder is earlier in the batch)
    {Code.unknownParent, path, parentId, ...}  unknown parents: (path, parentId) pairs, path
                                       like "[1].dependsOn[0]"
    {Code.capacity, limit}             more than maxUnfinished unfinished tasks
  Publishes ready{pool} per pool with new queued work and delayed{id, runAt} per delayed task.
]]
--- @include "prefix"
--- @include "tkey"
--- @include "values"
--- @include "insert"
--- @include "done"

local now = tonumber(ARGV[1])
local limit = num(ARGV[2])
local n = tonumber(ARGV[3])

-- Only each task's ARGV position is kept between the passes: big batches would otherwise
-- keep thousands of tables alive and make Lua's garbage collector the bottleneck.
local starts, ids, keys, issues = {}, {}, {}, {}
local at = ''
local function check(parent, path)
  if not ids[parent] and redis.call('EXISTS', tkey(parent)) == 0 then
    issues[#issues + 1] = at .. path
    issues[#issues + 1] = parent
  end
end
local i = 4
for j = 1, n do
  starts[j] = i
  local t
  t, i = readTask(ARGV, i)
  if ids[t.id] or redis.call('EXISTS', tkey(t.id)) == 1 then return {Code.idInUse, t.id} end
  if t.key then
    local holder = redis.call('HGET', P .. 'keys', t.key)
    if holder or keys[t.key] then return {Code.keyHeld, t.key, holder or ''} end
    keys[t.key] = true
  end
  at = n > 1 and ('[' .. (j - 1) .. '].') or ''
  for d, parent in ipairs(t.deps) do check(parent, 'dependsOn[' .. (d - 1) .. ']') end
  if t.onSuccessOf ~= '' then check(t.onSuccessOf, 'onSuccessOf') end
  if t.onFailureOf ~= '' then check(t.onFailureOf, 'onFailureOf') end
  ids[t.id] = true
end
if #issues > 0 then
  table.insert(issues, 1, Code.unknownParent)
  return issues
end
if limit then
  local unfinished = 0
  local c = redis.call('HMGET', P .. 'counts', unpack(UNFINISHED_STATUSES))
  for j = 1, #UNFINISHED_STATUSES do unfinished = unfinished + (tonumber(c[j]) or 0) end
  if unfinished + n > limit then return {Code.capacity, limit} end
end

local out = {Code.ok}
for j = 1, n do
  local status, reason = insertTask(readTask(ARGV, starts[j]), now)
  out[#out + 1] = status
  out[#out + 1] = reason or ''
end
return done(out)
