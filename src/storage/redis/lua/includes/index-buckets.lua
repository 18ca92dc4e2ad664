--[[
  The `all` index, every task by creation order, kept as buckets `all:<n>` of INDEX_BUCKET
  consecutive orders (n = floor(order / INDEX_BUCKET), score = order, member = id). A bucket
  holds at most INDEX_BUCKET tasks, within Redis's zset-max-listpack-entries, so it stays a
  listpack: about a fifth of a skiplist entry's memory. `allb` is the directory of the
  buckets that hold a task (score = member = n), so listings step from one to the next.
]]
--- @include "prefix"
--- @include "values"
--- @include "chunked"

-- Buckets this call put in (or found in) the directory.
local listedBuckets = {} --- @per-call

local function bucketOf(order) return text(math.floor(order / INDEX_BUCKET)) end

-- The bucket the last task went to, and its key: consecutive tasks mostly share one.
local lastBucket, lastBucketKey = nil, nil --- @per-call

local function indexAll(order, id)
  local b = math.floor(order / INDEX_BUCKET)
  if b ~= lastBucket then
    local n = text(b)
    lastBucket, lastBucketKey = b, P .. 'all:' .. n
    if not listedBuckets[n] then
      listedBuckets[n] = true
      redis.call('ZADD', P .. 'allb', n, n)
    end
  end
  redis.call('ZADD', lastBucketKey, order, id)
end

-- Takes `ids` out of the index, `orders[i]` being the order of ids[i]; a bucket left empty
-- leaves the directory.
local function unindexAll(ids, orders)
  local byBucket, buckets = {}, {}
  for i, id in ipairs(ids) do
    local n = bucketOf(orders[i])
    local list = byBucket[n]
    if not list then
      list = {}
      byBucket[n] = list
      buckets[#buckets + 1] = n
    end
    list[#list + 1] = id
  end
  for _, n in ipairs(buckets) do
    local key = P .. 'all:' .. n
    callChunked('ZREM', key, byBucket[n])
    if redis.call('EXISTS', key) == 0 then
      redis.call('ZREM', P .. 'allb', n)
      listedBuckets[n] = nil
      -- indexAll names this bucket to the directory again if it is used after.
      if tonumber(n) == lastBucket then lastBucket = nil end
    end
  end
end

-- scanNewestFirst (includes/listing.lua) over the `all` index: from `bound` ("+inf", or
-- "(<order>") down, a bucket per read; each read and each task examined counts against
-- `budget`.
local function scanAllNewestFirst(bound, want, budget, accept)
  local out = {''}
  local examined, found = 0, 0
  local top = bound == '+inf' and '+inf' or bucketOf(tonumber(string.sub(bound, 2)))
  while examined < budget and found < want do
    local n = redis.call('ZREVRANGEBYSCORE', P .. 'allb', top, '-inf', 'LIMIT', 0, 1)[1]
    if not n then return out end
    top = '(' .. n
    examined = examined + 1
    local page = redis.call('ZREVRANGEBYSCORE', P .. 'all:' .. n, bound, '-inf', 'WITHSCORES')
    for i = 1, #page, 2 do
      bound = '(' .. page[i + 1]
      examined = examined + 1
      if accept(page[i], page[i + 1], out) then found = found + 1 end
      if found >= want or examined >= budget then
        -- The rest of this bucket, or the next one, is read from the cursor.
        out[1] = bound
        return out
      end
    end
    -- The bucket is read: the next read starts below it.
    bound = '(' .. (tonumber(n) * INDEX_BUCKET)
  end
  out[1] = bound
  return out
end
