--[[
  history: one bounded step of the finished-attempts listing, newest first.

  FLAGS allow-oom      (a read: a full Redis still answers it; as a function, a script
                       without flags would be refused there as a possible writer)
  KEYS[1]  key prefix `<name>:{<tag>}:` (derives history)
  ARGV[1]  upper bound on the history seq: "+inf", or "(<seq>" (exclusive, from a cursor)
  ARGV[2]  attempt statuses wanted, comma-separated, or "" for any
  ARGV[3]  type, or "" for any
  ARGV[4]  pool, or "" for any
  ARGV[5]  q lowercased by the caller, or "" (pre-filter, see includes/listing.lua)
  ARGV[6]  want: stop after this many candidates
  ARGV[7]  budget: stop after examining this many attempts

  Returns {nextBound, seq, json, seq, json, ...}; nextBound is "(<seq>" to continue from,
  or "" when history is exhausted.
]]
--- @include "prefix"
--- @include "listing"

local matches = listingFilter(ARGV[2], ARGV[3], ARGV[4])
local q = ARGV[5]

return scanNewestFirst(P .. 'history', ARGV[1], tonumber(ARGV[6]), tonumber(ARGV[7]),
  function(member, seq, out)
    local json = string.sub(member, SEQ_WIDTH + 1)
    local a = cjson.decode(json)
    if not matches(a.status, a.type, a.pool) then return false end
    if q ~= '' then
      local message = type(a.error) == 'table' and a.error.message or ''
      if not mayContain(a.taskId .. ' ' .. a.type .. ' ' .. tostring(message), q) then
        return false
      end
    end
    out[#out + 1] = seq
    out[#out + 1] = json
    return true
  end)
