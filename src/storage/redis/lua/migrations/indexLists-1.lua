--[[
  indexLists: layout 5 to 6, one bounded step. Each bucket `all:<n>` of the `all` index (a
  zset, score = order, member = id; listed in `allb`) becomes the list `al:<n>` of its ids
  in order (listed in `alb`; includes/index-buckets.lua).
  Buckets move whole, 8 a call (at most INDEX_BUCKET entries each), lowest first, each moved
  and deleted in the same call, so a crashed init() goes on where it stopped. A node of
  layout 5 still running may add to a moved bucket: its orders are newer than any moved, so
  the next call appends them after.

  FLAGS allow-oom      (what it writes, it frees: a full Redis must not stop a node from
                       starting)
  KEYS[1]  key prefix `<name>:{<tag>}:` (derives meta and the keys above)
  ARGV[1]  the layout migrated from
  ARGV[2]  the layout migrated to

  Returns {layout}: the layout the store holds afterwards (ARGV[2] once everything moved,
  stamped only while meta.layout says ARGV[1]), or {"more"} when buckets are left to move.
]]
--- @include "migration-layout"

local P = KEYS[1]
local found = storedLayout(P)
if found ~= ARGV[1] then return {found} end
local BUCKETS = 8

local buckets = redis.call('ZRANGE', P .. 'allb', 0, BUCKETS - 1)
for _, n in ipairs(buckets) do
  local from, to = P .. 'all:' .. n, P .. 'al:' .. n
  local ids = redis.call('ZRANGE', from, 0, -1)
  if #ids > 0 then
    redis.call('RPUSH', to, unpack(ids))
    redis.call('ZADD', P .. 'alb', n, n)
  end
  redis.call('DEL', from)
  redis.call('ZREM', P .. 'allb', n)
end
if #buckets > 0 then return {'more'} end
stampLayout(P, ARGV[2])
return {ARGV[2]}
