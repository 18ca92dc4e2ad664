--[[
  listTasks: one bounded step of a task listing, newest first.

  FLAGS allow-oom      (a read: a full Redis still answers it; as a function, a script
                       without flags would be refused there as a possible writer)
  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  index: "all" (its buckets: includes/index-buckets.lua), or "status:<status>" when
           the filter names one indexed status (waiting, dead, cancelled, expired)
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
--- @include "prefix"
--- @include "tkey"
--- @include "record"
--- @include "index-buckets"
--- @include "listing"

local matches = listingFilter(ARGV[3], ARGV[4], ARGV[5])
local q = ARGV[6]

local function accept(id, _, out)
  local v = redis.call('HMGET', tkey(id), 'status', 'type', 'pool', 'key', 'payload', 'error')
  if not v[1] or not matches(v[1], v[2], v[3] or DEFAULT_POOL) then return false end
  if q ~= '' then
    local message = ''
    if v[6] then message = cjson.decode(v[6]).message or '' end
    local text = id .. ' ' .. v[2] .. ' ' .. (v[4] or '') .. ' ' .. (v[5] or 'null') .. ' ' ..
      message
    if not mayContain(text, q) then return false end
  end
  out[#out + 1] = record(id)
  return true
end

local index, bound, want, budget = ARGV[1], ARGV[2], tonumber(ARGV[7]), tonumber(ARGV[8])
if index == 'all' then return scanAllNewestFirst(bound, want, budget, accept) end
return scanNewestFirst(P .. index, bound, want, budget, accept)
