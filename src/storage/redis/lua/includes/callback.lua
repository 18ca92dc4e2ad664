--[[
  Callbacks (a task's `callback`; the memory store's callbacks.ts makes them alike): a task
  that ends in one of its callback's statuses gets, in the same script, a task of type
  CALLBACK_TYPE that POSTs its final record. That task carries the ended task's hash as
  HGETALL gives it (`snapshot` in its body, decoded by codec.ts), so retention pruning the
  task later cannot lose the record; it has no callback of its own. One insert per ended
  task: every script's ending work stays bounded as before (CASCADE_BUDGET).
]]
--- @include "tkey"
--- @include "values"
--- @include "seq"
--- @include "move"
--- @include "record"
--- @include "index-buckets"

-- The task's `cb` field is "<initials of its statuses>:<pool>" (codec.ts callbackField);
-- t.cb is false when load() found none, nil when it was not loaded. The callback's id counts
-- the task's callbacks (`cbn`), skipping ids in use (callbacks an earlier task of the same
-- id left before retention pruned it), at most CALLBACK_ID_PROBES, then a seq.
local function addCallback(t, status, now)
  local cb = t.cb
  if cb == nil then cb = redis.call('HGET', tkey(t.id), 'cb') end
  if not cb then return end
  local on, pool = string.match(cb, '^(%a*):(.*)$')
  if not string.find(on, string.sub(status, 1, 1), 1, true) then return end
  local k, id = tkey(t.id), nil
  for _ = 1, CALLBACK_ID_PROBES do
    local candidate = CALLBACK_ID_PREFIX .. t.id .. '_' .. text(redis.call('HINCRBY', k, 'cbn', 1))
    if redis.call('EXISTS', tkey(candidate)) == 0 then
      id = candidate
      break
    end
  end
  local order = nextSeq()
  id = id or (CALLBACK_ID_PREFIX .. t.id .. '_s' .. text(order))
  -- JSON text built here, never re-encoded: the snapshot is a list of strings.
  local payload = '{"event":"task.' .. status .. '","taskId":' .. cjson.encode(t.id) .. '}'
  local body = '{"createdAt":' .. text(now) .. ',' .. CALLBACK_BODY .. ',"snapshot":' ..
    cjson.encode(record(t.id)) .. '}'
  indexAll(order, id)
  local fields = {'type', CALLBACK_TYPE, 'payload', payload, 'body', body, 'maxRetries',
    text(CALLBACK_MAX_RETRIES), 'order', order}
  if pool ~= DEFAULT_POOL then
    fields[#fields + 1] = 'pool'
    fields[#fields + 1] = pool
  end
  enter({id = id, pool = pool, priority = 0, order = order}, 'queued', now, fields)
end
