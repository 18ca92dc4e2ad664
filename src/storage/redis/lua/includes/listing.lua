--[[
  What listings (listTasks, history) share: the filter on status, type and pool, the text
  pre-filter, and the bounded newest-first scan of an index.
]]

-- A filter on status ("a,b", or "" for any), type and pool ("" for any).
local function listingFilter(statuses, wantType, wantPool)
  local wanted, any = {}, statuses == ''
  for s in string.gmatch(statuses, '[^,]+') do wanted[s] = true end
  return function(status, type, pool)
    return (any or wanted[status] == true) and (wantType == '' or type == wantType) and
      (wantPool == '' or pool == wantPool)
  end
end

-- Text search. Lua lowercases ASCII only, so this is a pre-filter: it never rejects what
-- JavaScript's toLowerCase().includes() would accept, and the caller applies the exact test
-- to what passes.
local function mayContain(text, qLower)
  if string.find(string.lower(text), qLower, 1, true) then return true end
  -- Non-ASCII text may lowercase differently in JavaScript: let the caller decide.
  return string.find(text, '[\128-\255]') ~= nil
end

-- Scans sorted set `key` from `bound` ("+inf", or "(<score>" from a cursor) down, 200
-- members per call, until `want` members were accepted or `budget` examined.
-- `accept(member, score, out)` appends what it keeps to `out` and returns true for a kept
-- member. Returns {nextBound, kept values...}; nextBound is "(<score>" to continue from, or
-- "" when the index is exhausted.
local function scanNewestFirst(key, bound, want, budget, accept)
  local out = {''}
  local examined, found, exhausted = 0, 0, false
  while examined < budget and found < want do
    local step = math.min(200, budget - examined)
    local page = redis.call('ZREVRANGEBYSCORE', key, bound, '-inf', 'WITHSCORES', 'LIMIT', 0, step)
    local consumed = 0
    for i = 1, #page, 2 do
      consumed = i + 1
      bound = '(' .. page[i + 1]
      examined = examined + 1
      if accept(page[i], page[i + 1], out) then
        found = found + 1
        if found >= want then break end
      end
    end
    if consumed == #page and #page < 2 * step then
      exhausted = true
      break
    end
  end
  out[1] = exhausted and '' or bound
  return out
end
