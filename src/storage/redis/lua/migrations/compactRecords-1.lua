--[[
  compactRecords: layout 2 to 3, one bounded step (at most 1,000 entries moved per call, each
  moved and removed in the same call, so a crashed init() goes on where it stopped):
  - history: the `history` zset (member = fixed-width seq..AttemptRecord JSON) becomes the
    `attempts` stream (entry `<seq>-0`, field a = its values as a JSON array,
    src/storage/redis/attempt-codec.ts);
  - the `all` zset becomes its buckets `all:<n>` and their directory `allb`
    (includes/index-buckets.lua);
  - the `finished` zset (member "<s|c><id>", score = finishing seq) becomes the `retained`
    stream (entry `<seq>-0`, field m = "<s|c><order>:<id>"); each row keeps its finishing
    seq in `seq`.
  Task hashes need no rewrite: layout 3 leaves fields at their defaults out of new hashes
  and reads hashes holding them the same.

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
local STEP = 1000

-- An AttemptRecord's JSON as its values in ATTEMPT_AT order (an absent one as null).
local function tuple(json)
  local ok, a = pcall(cjson.decode, json)
  if not ok or type(a) ~= 'table' then return nil end
  local values = {}
  for field, i in pairs(ATTEMPT_AT) do
    if a[field] == nil then values[i] = cjson.null else values[i] = a[field] end
  end
  return cjson.encode(values)
end

-- The oldest STEP members of zset `key` (score, member pairs), removed; nil when empty.
local function take(key)
  if redis.call('TYPE', key).ok ~= 'zset' then return nil end
  local page = redis.call('ZRANGE', key, 0, STEP - 1, 'WITHSCORES')
  redis.call('ZREMRANGEBYRANK', key, 0, #page / 2 - 1)
  return page
end

local page = take(P .. 'history')
if page then
  for i = 1, #page, 2 do
    local entry = tuple(string.sub(page[i], SEQ_WIDTH + 1))
    -- pcall: an entry at or below the stream's last id (none is expected) is dropped, as is
    -- a member that is not an attempt's JSON.
    if entry then
      redis.pcall('XADD', P .. 'attempts', string.format('%d', tonumber(page[i + 1])) .. '-0',
        'a', entry)
    end
  end
  return {'more'}
end

page = take(P .. 'all')
if page then
  for i = 1, #page, 2 do
    local n = string.format('%d', math.floor(tonumber(page[i + 1]) / INDEX_BUCKET))
    redis.call('ZADD', P .. 'all:' .. n, page[i + 1], page[i])
    redis.call('ZADD', P .. 'allb', n, n)
  end
  return {'more'}
end

page = take(P .. 'finished')
if page then
  for i = 1, #page, 2 do
    local member, seq = page[i], page[i + 1]
    local row = P .. 'task:' .. string.sub(member, 2)
    local order = redis.call('HGET', row, 'order')
    -- A member without a row (none is expected) has nothing left to prune.
    if order then
      seq = string.format('%d', tonumber(seq))
      redis.pcall('XADD', P .. 'retained', seq .. '-0', 'm',
        string.sub(member, 1, 1) .. order .. ':' .. string.sub(member, 2))
      redis.call('HSET', row, 'seq', seq)
    end
  end
  return {'more'}
end

stampLayout(P, ARGV[2])
return {ARGV[2]}
