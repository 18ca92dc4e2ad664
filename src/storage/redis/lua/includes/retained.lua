--[[
  The `retained` stream: succeeded and cancelled rows in finishing order, for row retention
  (includes/retention.lua). Entry `<seq>-0` (the row's finishing seq, kept in its `seq`
  field), field m = its finishedMember (below), so pruning reads no row. Rows
  leave it from the oldest end, so the stream's nodes are freed as pruning passes them; the
  rare removal from the middle (a resubmit, a parent whose cascade is deferred) is an XDEL.
]]
--- @include "prefix"
--- @include "values"

-- Files a finished row under its finishing seq. pcall: an id at or below the stream's last
-- (none is expected) must never fail the transition; the row is then never pruned.
local function retain(seq, member)
  redis.pcall('XADD', P .. 'retained', text(seq) .. '-0', 'm', member)
end

local function unretain(seq)
  if seq then redis.call('XDEL', P .. 'retained', text(seq) .. '-0') end
end

-- The entry of a finished row: its status initial (s|c), its order (text), ':', its id
-- (the order finds it in `all` when it is pruned).
local function finishedMember(status, order, id)
  return string.sub(status, 1, 1) .. order .. ':' .. id
end

-- An entry's status initial, order and id.
local function parseFinished(member)
  local initial, order, id = string.match(member, '^(%a)(%d+):(.*)$')
  return initial, tonumber(order), id
end
