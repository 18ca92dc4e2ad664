--[[
  Ready queues. Per pool and priority a list `rl:<priority>:<pool>` of `<seq><id>` members
  (seqMember), oldest first: a claim reads from the left. A task going back to where it was
  (handed back with its seq, or unparked) is older than everything in that list, so it goes
  to a small zset `rf:<priority>:<pool>` by seq, which a claim reads first. Per pool a zset
  `rlv:<pool>` of the priorities that have either (score -priority: the highest first). A
  list entry costs ~40 B where a sorted-set entry cost ~136 B (docs/BENCHMARKS.md).

  An entry whose task left `queued` (cancelled, expired, ...) stays where it is until a claim
  reads it: taking it out at once would be an LREM over the list. A claim takes an entry only
  while its task is queued with the entry's seq (readyCurrent). `queuedn` counts each pool's
  queued tasks that are not parked, exactly (stats-1.lua).
]]
--- @include "prefix"
--- @include "values"
--- @include "bump"

-- Most left-behind entries a claim drops (beyond its scan's budget); it then asks to be
-- called again.
local READY_DROP_BOUND = 1000

-- The last list named, by pool and priority: the tasks of a submit mostly share one.
local lastReadyPool, lastReadyPriority, lastReadyList = nil, nil, nil --- @per-call
local function readyList(pool, priority)
  if pool ~= lastReadyPool or priority ~= lastReadyPriority then
    lastReadyPool, lastReadyPriority = pool, priority
    lastReadyList = P .. 'rl:' .. text(priority) .. ':' .. pool
  end
  return lastReadyList
end
local function readyFront(pool, priority) return P .. 'rf:' .. text(priority) .. ':' .. pool end
local function readyLevels(pool) return P .. 'rlv:' .. pool end

-- Queues `member` at the back of its priority, or (`front`) among the tasks going back,
-- before the list, by the seq it starts with.
local function readyAdd(pool, priority, member, front)
  if front then
    redis.call('ZADD', readyFront(pool, priority), string.sub(member, 1, SEQ_WIDTH), member)
    redis.call('ZADD', readyLevels(pool), text(-priority), text(priority))
  elseif redis.call('RPUSH', readyList(pool, priority), member) == 1 then
    redis.call('ZADD', readyLevels(pool), text(-priority), text(priority))
  end
  bump(QUEUEDN, pool, 1)
end

-- Up to `n` entries of one priority in claim order (those going back first, then the
-- list), and how many of them came from the front zset.
local function readyRead(pool, priority, n)
  local batch = redis.call('ZRANGE', readyFront(pool, priority), '0', text(n - 1))
  local fromFront = #batch
  if fromFront < n then
    local tail = redis.call('LRANGE', readyList(pool, priority), '0', text(n - fromFront - 1))
    for i = 1, #tail do batch[fromFront + i] = tail[i] end
  end
  return batch, fromFront
end

-- Drops the first `used` entries readyRead returned (`fromFront` of them from the front).
local function readyDrop(pool, priority, used, fromFront)
  local front = math.min(used, fromFront)
  if front > 0 then
    redis.call('ZREMRANGEBYRANK', readyFront(pool, priority), '0', text(front - 1))
  end
  if used > front then
    redis.call('LTRIM', readyList(pool, priority), text(used - front), '-1')
  end
end

-- Zero strings by length: the padding of a seq in a member.
local ZEROS = {[0] = ''}
for n = 1, SEQ_WIDTH do ZEROS[n] = ZEROS[n - 1] .. '0' end

-- Whether a list entry still stands for its task: queued, with the entry's seq. Compared as
-- text (digits, zero-padded in the member): converting both to numbers cost 5x as much.
local function readyCurrent(status, seq, member)
  if status ~= 'queued' or not seq then return false end
  local pad = SEQ_WIDTH - #seq
  return pad >= 0 and string.sub(member, pad + 1, SEQ_WIDTH) == seq and
    string.sub(member, 1, pad) == ZEROS[pad]
end

-- Whether the pool has queued tasks that are not parked: its count, with what this call
-- changed and done() has not written yet (a list may hold only entries left behind).
local function readyAny(pool)
  local pending = (BUMPS[QUEUEDN] or {})[pool] or 0
  return (tonumber(redis.call('HGET', QUEUEDN, pool)) or 0) + pending > 0
end
