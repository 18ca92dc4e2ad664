--[[
  readyLists: layout 3 to 4, one bounded step. Each pool's `ready:<pool>` zset (score
  -priority, member `<seq><id>`) becomes its ready lists (includes/ready.lua): per priority a
  list `rl:<priority>:<pool>` in the zset's order, the priorities in `rlv:<pool>`, and the
  count in `queuedn`. At most 1,000 entries move per call, each moved and removed in the same
  call, so a crashed init() goes on where it stopped; pools are looked at 100 a call in
  `stat-pools` order from the cursor `meta.readyCursor`.

  FLAGS allow-oom      (what it writes, it frees: a full Redis must not stop a node from
                       starting)
  KEYS[1]  key prefix `<name>:{<tag>}:` (derives meta and the keys above)
  ARGV[1]  the layout migrated from
  ARGV[2]  the layout migrated to

  Returns {layout}: the layout the store holds afterwards (ARGV[2] once everything moved,
  stamped only while meta.layout says ARGV[1]), or {"more"} when entries are left to move.
]]
--- @include "migration-layout"

local P = KEYS[1]
local found = storedLayout(P)
if found ~= ARGV[1] then return {found} end
local STEP, POOLS = 1000, 100

local cursor = tonumber(redis.call('HGET', P .. 'meta', 'readyCursor')) or 0
local pools = redis.call('ZRANGE', P .. 'stat-pools', cursor, cursor + POOLS - 1)
for _, pool in ipairs(pools) do
  local ready = P .. 'ready:' .. pool
  if redis.call('TYPE', ready).ok == 'zset' then
    local page = redis.call('ZRANGE', ready, 0, STEP - 1, 'WITHSCORES')
    for i = 1, #page, 2 do
      local priority = string.format('%d', -tonumber(page[i + 1]))
      local list = P .. 'rl:' .. priority .. ':' .. pool
      if redis.call('RPUSH', list, page[i]) == 1 then
        redis.call('ZADD', P .. 'rlv:' .. pool, -tonumber(priority), priority)
      end
    end
    redis.call('ZREMRANGEBYRANK', ready, 0, #page / 2 - 1)
    redis.call('HINCRBY', P .. 'queuedn', pool, #page / 2)
    return {'more'}
  end
end
if #pools == POOLS then
  redis.call('HSET', P .. 'meta', 'readyCursor', cursor + POOLS)
  return {'more'}
end
redis.call('HDEL', P .. 'meta', 'readyCursor')
stampLayout(P, ARGV[2])
return {ARGV[2]}
