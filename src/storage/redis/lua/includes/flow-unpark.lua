--[[
  Flow control: a key's slot or token frees, so its first parked tasks go back to their
  ready queues (keys: flow-state.lua).
]]
--- @include "flow-state"
--- @include "tkey"
--- @include "bump"
--- @include "publish"
--- @include "ready"

-- Moves the key's first parked tasks back to their ready queues, as many as it has room
-- for and at most `most` (default and at most FLOW_UNPARK_BOUND a call), and makes sure the
-- rest have a wake coming.
local function unparkFlow(key, now, most)
  local parked = P .. 'parked:' .. key
  local f = flowOf(key)
  if f.parked <= 0 then return 0 end
  local room, why = flowRoom(key, f, now)
  local n = math.min(room, most or FLOW_UNPARK_BOUND)
  if n > 0 then
    local moved = redis.call('ZRANGE', parked, 0, n - 1, 'WITHSCORES')
    local members = {}
    for i = 1, #moved, 2 do
      local member = moved[i]
      local id = string.sub(member, SEQ_WIDTH + 1)
      local row = redis.call('HMGET', tkey(id), 'status', 'pool')
      local pool = row[1] and (row[2] or DEFAULT_POOL)
      members[#members + 1] = member
      if pool then
        -- Older than everything in its list: it goes back among the tasks going back.
        readyAdd(pool, -tonumber(moved[i + 1]), member, true)
        redis.call('HDEL', tkey(id), 'wf')
        bump(P .. 'flowparked', pool, -1)
        announceReady(pool)
      end
    end
    redis.call('ZREM', parked, unpack(members))
    f.parked = f.parked - #members
    if f.parked <= 0 then
      flowAdd(key, -PARKED_FLAG)
      return #members
    end
  end
  if room > FLOW_UNPARK_BOUND and not most then
    flowWakeAt(key, now)
  elseif why == 'rate' or (f.rate and room == flowTokens(key, f, now)) then
    flowWakeAt(key, flowNextToken(key, f, now))
  end
  return n
end

-- A task of the key stopped running (ended, handed back, recovered): its slot frees, for
-- one parked task (more room than that is the rate's, whose wake unparks it: moving more
-- here would move the same room again at each stop of a batch).
local function flowStopped(key, now)
  local state = flowAdd(key, -1)
  local f = FLOWS[key]
  if f then f.run = f.run - 1 end
  -- Parked tasks of the key (its state's flag) may take the slot.
  if state >= PARKED_FLAG then unparkFlow(key, now, 1) end
end

-- A parked task left `queued` (cancelled, expired): out of its key's parked set. False when
-- it was not parked.
local function flowLeftParked(key, pool, id, member)
  local parked = P .. 'parked:' .. key
  if redis.call('ZREM', parked, member) == 0 then return false end
  local f = FLOWS[key]
  if f then f.parked = f.parked - 1 end
  if redis.call('EXISTS', parked) == 0 then flowAdd(key, -PARKED_FLAG) end
  redis.call('HDEL', tkey(id), 'wf')
  bump(P .. 'flowparked', pool, -1)
  return true
end
