--[[
  history: one bounded step of the finished-attempts listing, newest first.

  FLAGS allow-oom      (a read: a full Redis still answers it; as a function, a script
                       without flags would be refused there as a possible writer)
  KEYS[1]  key prefix `<name>:{<tag>}:` (derives attempts)
  ARGV[1]  upper bound on the history seq: "+inf", or "(<seq>" (exclusive, from a cursor)
  ARGV[2]  attempt statuses wanted, comma-separated, or "" for any
  ARGV[3]  type, or "" for any
  ARGV[4]  pool, or "" for any
  ARGV[5]  q lowercased by the caller, or "" (pre-filter, see includes/listing.lua)
  ARGV[6]  want: stop after this many candidates
  ARGV[7]  budget: stop after examining this many attempts

  Returns {nextBound, seq, entry, seq, entry, ...} (an entry as attempt-codec.ts encodes
  it); nextBound is "(<seq>" to continue from, or "" when history is exhausted.
]]
--- @include "prefix"
--- @include "listing"
--- @include "attempt-entry"

local matches = listingFilter(ARGV[2], ARGV[3], ARGV[4])
local q = ARGV[5]
local want, budget = tonumber(ARGV[6]), tonumber(ARGV[7])

-- Entry ids are "<seq>-0" (includes/attempts.lua); a cursor names a seq.
local bound = ARGV[1] == '+inf' and '+' or (ARGV[1] .. '-0')
local out = {''}
local examined, found, exhausted, last = 0, 0, false, nil
while examined < budget and found < want do
  local step = math.min(200, budget - examined)
  local page = redis.call('XREVRANGE', P .. 'attempts', bound, '-', 'COUNT', step)
  for i, entry in ipairs(page) do
    local seq = string.match(entry[1], '^%d+')
    bound, last = '(' .. entry[1], seq
    examined = examined + 1
    local json = entry[2][2]
    local a = attemptValues(json, q ~= '')
    local kind = a[ATTEMPT_AT.type]
    local keep = matches(a[ATTEMPT_AT.status], kind, a[ATTEMPT_AT.pool])
    if keep and q ~= '' then
      local e = a[ATTEMPT_AT.error]
      local message = type(e) == 'table' and e.message or ''
      keep = mayContain(a[ATTEMPT_AT.taskId] .. ' ' .. kind .. ' ' .. tostring(message), q)
    end
    if keep then
      out[#out + 1] = seq
      out[#out + 1] = json
      found = found + 1
      if found >= want then
        exhausted = i == #page and #page < step
        break
      end
    end
  end
  if #page < step and found < want then
    exhausted = true
    break
  end
end
out[1] = (exhausted or not last) and '' or ('(' .. last)
return out
