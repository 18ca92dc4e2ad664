--[[
  resubmitMatching: resubmits dead, cancelled or expired tasks matching a filter, oldest first, in
  bounded chunks (the caller loops with the returned cursor).

  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  now (epoch ms)
  ARGV[2]  status: "dead", "cancelled" or "expired"
  ARGV[3]  type, or "" for any
  ARGV[4]  pool, or "" for any
  ARGV[5]  cursor: only tasks with order > cursor ("-inf" to start)
  ARGV[6]  chunk: at most this many tasks examined

  A task whose key another unfinished task now holds stays where it is.
  Returns {resubmitted, nextCursor}; nextCursor is "" when the index is exhausted.
]]
--- @include "prefix"
--- @include "load"
--- @include "revive"
--- @include "done"

local now, status, wantType, wantPool = tonumber(ARGV[1]), ARGV[2], ARGV[3], ARGV[4]
local chunk = tonumber(ARGV[6])
local from = ARGV[5] == '-inf' and '-inf' or '(' .. ARGV[5]
local entries = redis.call('ZRANGEBYSCORE', P .. 'status:' .. status, from, '+inf',
  'WITHSCORES', 'LIMIT', 0, chunk)
local n, last = 0, nil
for i = 1, #entries, 2 do
  last = entries[i + 1]
  local t = load(entries[i])
  if t and (wantType == '' or t.type == wantType) and (wantPool == '' or t.pool == wantPool) then
    if revive(t, now) == Code.ok then n = n + 1 end
  end
end
if #entries < 2 * chunk then last = '' end
return done({n, last})
