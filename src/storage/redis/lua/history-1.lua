--[[
  history: one bounded step of the finished-attempts listing, newest first.

  KEYS[1]  key prefix `<name>:{<tag>}:` (derives history)
  ARGV[1]  upper bound on the history seq: "+inf", or "(<seq>" (exclusive, from a cursor)
  ARGV[2]  attempt statuses wanted, comma-separated, or "" for any
  ARGV[3]  type, or "" for any
  ARGV[4]  pool, or "" for any
  ARGV[5]  q lowercased by the caller, or "" (pre-filter, see includes/text.lua)
  ARGV[6]  want: stop after this many candidates
  ARGV[7]  budget: stop after examining this many attempts

  Returns {nextBound, seq, json, seq, json, ...}; nextBound is "(<seq>" to continue from,
  or "" when history is exhausted.
]]
--- @include "task"
--- @include "text"

local h, bound = P .. 'history', ARGV[1]
local wantStatus = {}
local anyStatus = ARGV[2] == ''
for s in string.gmatch(ARGV[2], '[^,]+') do wantStatus[s] = true end
local wantType, wantPool, q = ARGV[3], ARGV[4], ARGV[5]
local want, budget = tonumber(ARGV[6]), tonumber(ARGV[7])

local out = {''}
local examined, found, exhausted = 0, 0, false
while examined < budget and found < want do
  local step = math.min(200, budget - examined)
  local page = redis.call('ZREVRANGEBYSCORE', h, bound, '-inf', 'WITHSCORES', 'LIMIT', 0, step)
  local consumed = 0
  for i = 1, #page, 2 do
    consumed = i + 1
    local json = string.sub(page[i], 17)
    bound = '(' .. page[i + 1]
    examined = examined + 1
    local a = cjson.decode(json)
    if (anyStatus or wantStatus[a.status]) and (wantType == '' or a.type == wantType) and
      (wantPool == '' or a.pool == wantPool) then
      local ok = q == ''
      if not ok then
        local message = type(a.error) == 'table' and a.error.message or ''
        ok = mayContain(a.taskId .. ' ' .. a.type .. ' ' .. tostring(message), q)
      end
      if ok then
        out[#out + 1] = page[i + 1]
        out[#out + 1] = json
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
