--[[
  The `retained` stream: succeeded and cancelled rows in finishing order, for row retention
  (includes/retention.lua). Entry `<seq>-0` (the row's finishing seq, kept in its `seq`
  field), field m = its finishedMember (index-buckets.lua), so pruning reads no row. Rows
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
