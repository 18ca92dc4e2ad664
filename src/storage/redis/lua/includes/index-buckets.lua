--[[
  The `all` index, every task by creation order, kept as buckets `al:<n>` of INDEX_BUCKET
  consecutive orders (n = floor(order / INDEX_BUCKET)): a list of ids, oldest first. Orders
  only grow, so a task is appended (an RPUSH, where a sorted set's insert searched the bucket
  end to end) and a bucket of at most INDEX_BUCKET ids stays one listpack. A listing reads
  each task's order from its hash. `alb` is the directory of the buckets that hold a task
  (score = member = n), so listings step from one to the next.
]]
--- @include "prefix"
--- @include "tkey"
--- @include "values"

local function bucketOf(order) return math.floor(order / INDEX_BUCKET) end

-- The bucket the last task went to, and its key: consecutive tasks mostly share one.
local lastBucket, lastBucketKey = nil, nil --- @per-call

-- Appends a task; the push that makes its bucket names it to the directory.
local function indexAll(order, id)
  local b = bucketOf(order)
  if b ~= lastBucket then
    lastBucket, lastBucketKey = b, P .. 'al:' .. text(b)
  end
  if redis.call('RPUSH', lastBucketKey, id) == 1 then
    redis.call('ZADD', P .. 'alb', text(b), text(b))
  end
end

-- Takes `ids` out of the index, `orders[i]` being the order of ids[i]; a bucket left empty
-- leaves the directory. An LREM per task, each over one bucket: bounded by INDEX_BUCKET.
local function unindexAll(ids, orders)
  -- Each bucket's key, named once; the buckets in the order first met.
  local keys, touched = {}, {}
  for i, id in ipairs(ids) do
    local b = bucketOf(orders[i])
    local key = keys[b]
    if not key then
      key = P .. 'al:' .. text(b)
      keys[b] = key
      touched[#touched + 1] = b
    end
    redis.call('LREM', key, '1', id)
  end
  for _, b in ipairs(touched) do
    if redis.call('EXISTS', keys[b]) == 0 then redis.call('ZREM', P .. 'alb', text(b)) end
  end
end

-- scanNewestFirst (includes/listing.lua) over the `all` index: from `bound` ("+inf", or
-- "(<order>") down, a bucket per read; each read and each task examined counts against
-- `budget`. An id whose hash is gone is passed over, and so is a second entry of one id
-- (left by a node of layout 5 pruning during the migration, then reused).
local function scanAllNewestFirst(bound, want, budget, accept)
  local out = {''}
  local examined, found = 0, 0
  local below = bound == '+inf' and math.huge or tonumber(string.sub(bound, 2))
  local top = bound == '+inf' and '+inf' or text(bucketOf(below))
  while examined < budget and found < want do
    local n = redis.call('ZREVRANGEBYSCORE', P .. 'alb', top, '-inf', 'LIMIT', 0, 1)[1]
    if not n then return out end
    top = '(' .. n
    examined = examined + 1
    local b = tonumber(n)
    local ids, seen = redis.call('LRANGE', P .. 'al:' .. n, 0, -1), {}
    for i = #ids, 1, -1 do
      local order = not seen[ids[i]] and tonumber(redis.call('HGET', tkey(ids[i]), 'order'))
      seen[ids[i]] = true
      if order and order < below then
        bound = '(' .. text(order)
        examined = examined + 1
        if accept(ids[i], order, out) then found = found + 1 end
        if found >= want or examined >= budget then
          -- The rest of this bucket, or the next one, is read from the cursor.
          out[1] = bound
          return out
        end
      end
    end
    -- The bucket is read: the next read starts below it.
    below = b * INDEX_BUCKET
    bound = '(' .. text(below)
  end
  out[1] = bound
  return out
end
