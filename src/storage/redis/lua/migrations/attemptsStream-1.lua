--[[
  attemptsStream: layout 2 to 3, one bounded step. History moves from the `history` zset
  (member = fixed-width seq..AttemptRecord JSON) to the `attempts` stream (entry `<seq>-0`,
  field a = its values as a JSON array, src/storage/redis/attempt-codec.ts), the oldest 1,000
  attempts per call, each moved and removed in the same call, so a crashed
  init() goes on where it stopped. Task hashes need no rewrite: layout 3 leaves fields at
  their defaults out of new hashes and reads hashes holding them the same.

  FLAGS allow-oom      (the stream holds what the zset freed: a full Redis must not stop a
                       node from starting)
  KEYS[1]  key prefix `<name>:{<tag>}:` (derives meta, history, attempts)
  ARGV[1]  the layout migrated from
  ARGV[2]  the layout migrated to

  Returns {layout}: the layout the store holds afterwards (ARGV[2] once the zset is empty,
  stamped only while meta.layout says ARGV[1]), or {"more"} when attempts are left to move.
]]
--- @include "facts"

local meta, old, new = KEYS[1] .. 'meta', KEYS[1] .. 'history', KEYS[1] .. 'attempts'
local found = redis.call('HGET', meta, 'layout') or UNVERSIONED_LAYOUT
if found ~= ARGV[1] then return {found} end
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

if redis.call('TYPE', old).ok == 'zset' then
  local page = redis.call('ZRANGE', old, 0, 999, 'WITHSCORES')
  for i = 1, #page, 2 do
    local entry = tuple(string.sub(page[i], SEQ_WIDTH + 1))
    -- pcall: an entry at or below the stream's last id (none is expected) is dropped, as is
    -- a member that is not an attempt's JSON.
    if entry then
      redis.pcall('XADD', new, string.format('%d', tonumber(page[i + 1])) .. '-0', 'a', entry)
    end
  end
  redis.call('ZREMRANGEBYRANK', old, 0, #page / 2 - 1)
  if redis.call('EXISTS', old) == 1 then return {'more'} end
end
redis.call('HSET', meta, 'layout', ARGV[2])
return {ARGV[2]}
