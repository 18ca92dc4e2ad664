--[[
  Deferred writes to shared index keys, sent by done().
]]
--- @include "chunked"

-- Writes to shared index keys that no script reads before done() (leases, finished,
-- history, durations:<type>) are deferred and sent by done() as one command per key and
-- kind, in the order they were made: from Lua every redis.call has a fixed cost several
-- times that of adding one member, and a batch of 50 completions made ~5 such calls each.
local DEFERRED, deferredKeys = {}, {} --- @per-call
local function defer(cmd, key, a, b)
  local ops = DEFERRED[key]
  if not ops then
    ops = {}
    DEFERRED[key] = ops
    deferredKeys[#deferredKeys + 1] = key
  end
  local last = ops[#ops]
  if not last or last[1] ~= cmd then
    last = {cmd}
    ops[#ops + 1] = last
  end
  last[#last + 1] = a
  if b ~= nil then last[#last + 1] = b end
end

local function flushDeferred()
  for _, key in ipairs(deferredKeys) do
    for _, op in ipairs(DEFERRED[key]) do callChunked(op[1], key, op, 2) end
  end
  DEFERRED, deferredKeys = {}, {}
end
