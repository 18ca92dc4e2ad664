--[[
  listTasks: one bounded step of a task listing, newest first.

  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  index: "all", or "status:<status>" when the filter names one indexed status
           (waiting, dead, cancelled)
  ARGV[2]  upper bound on order: "+inf", or "(<order>" (exclusive, from a cursor)
  ARGV[3]  statuses wanted, comma-separated, or "" for any
  ARGV[4]  type, or "" for any
  ARGV[5]  pool, or "" for any
  ARGV[6]  q lowercased by the caller, or ""
  ARGV[7]  want: stop after this many candidates
  ARGV[8]  budget: stop after examining this many tasks

  Filters status, type and pool exactly. The text filter here only narrows: a task whose
  text holds non-ASCII bytes stays a candidate (Lua lowercases ASCII only), and the caller
  applies the exact filter. Returns {nextBound, record, record, ...}: records are flat
  HGETALL lists; nextBound is "(<order>" to continue from, or "" when the index is exhausted.
]]
--- @include "task"
--- @include "text"

local index, bound = P .. ARGV[1], ARGV[2]
local wantStatus = {}
local anyStatus = ARGV[3] == ''
for s in string.gmatch(ARGV[3], '[^,]+') do wantStatus[s] = true end
local wantType, wantPool, q = ARGV[4], ARGV[5], ARGV[6]
local want, budget = tonumber(ARGV[7]), tonumber(ARGV[8])

local out = {''}
local examined, found, exhausted = 0, 0, false
while examined < budget and found < want do
  local step = math.min(200, budget - examined)
  local page = redis.call('ZREVRANGEBYSCORE', index, bound, '-inf', 'WITHSCORES', 'LIMIT', 0, step)
  local consumed = 0
  for i = 1, #page, 2 do
    consumed = i + 1
    local id = page[i]
    bound = '(' .. page[i + 1]
    examined = examined + 1
    local v = redis.call('HMGET', tkey(id), 'status', 'type', 'pool', 'key', 'payload', 'error')
    if v[1] and (anyStatus or wantStatus[v[1]]) and (wantType == '' or v[2] == wantType) and
      (wantPool == '' or v[3] == wantPool) then
      local text = nil
      if q ~= '' then
        local message = ''
        if v[6] then message = cjson.decode(v[6]).message or '' end
        text = id .. ' ' .. v[2] .. ' ' .. (v[4] or '') .. ' ' .. (v[5] or 'null') .. ' ' .. message
      end
      if q == '' or mayContain(text, q) then
        out[#out + 1] = record(id)
        found = found + 1
        if found >= want then break end
      end
    end
  end
  if consumed == #page and #page < 2 * step then
    exhausted = true
    break
  end
end
out[1] = exhausted and '' or bound
return out
