--[[
  promoteDue: moves due delayed tasks (scheduled, retrying) to their ready queues.

  FLAGS allow-oom      (runs above maxmemory: a full Redis must not refuse it)
  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  now (epoch ms)
  ARGV[2]  limit

  Earliest runAt first (ties in the order they were delayed). Atomic, so each due task is
  promoted exactly once however many instances race here. A due flow marker (a rate-parked
  key's next token, includes/flow-state.lua) unparks that key's first tasks instead. Publishes
  ready{pool} once per pool touched. Returns how many entries were promoted or woken.
]]
--- @include "prefix"
--- @include "load"
--- @include "move"
--- @include "done"
--- @include "flow-unpark"
--- @include "flow-state"

local now = tonumber(ARGV[1])
local due = redis.call('ZRANGEBYSCORE', P .. 'delayed', '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
local n = 0
for _, member in ipairs(due) do
  local id = string.sub(member, SEQ_WIDTH + 1)
  local t = string.sub(id, 1, 1) ~= '~' and load(id)
  if string.sub(id, 1, 1) == '~' then
    flowWoken(string.sub(id, 2))
    unparkFlow(string.sub(id, 2), now)
    n = n + 1
  elseif t then
    move(t, 'queued', now)
    n = n + 1
  else
    redis.call('ZREM', P .. 'delayed', member)
  end
end
return done(n)
