--[[
  Conversions between Redis replies and Lua values.
]]

-- Number to text. Lua's own conversion (tostring, and passing a number to redis.call, which
-- Redis formats with "%.17g": ~2k instructions) goes through printf's floating-point path,
-- ~3x the cost of an integer format: pass redis.call text made here.
-- Small counts (attempts, batch sizes) as text, made once when the library loads (`..`
-- writes these integers exactly); the last number again is its last text (a finished
-- task's seq names two stream entries).
local SMALL_TEXT = {[0] = '0'}
for n = 1, 255 do SMALL_TEXT[n] = n .. '' end
local lastNumber, lastText = nil, nil --- @per-call
local function text(n)
  local s = SMALL_TEXT[n]
  if s then return s end
  if n == lastNumber then return lastText end
  if n % 1 == 0 and n > -1e15 and n < 1e15 then s = string.format('%d', n) else s = tostring(n) end
  lastNumber, lastText = n, s
  return s
end

local function num(v)
  if v == false or v == nil or v == '' then return nil end
  return tonumber(v)
end

local function str(v)
  if v == false or v == nil then return nil end
  return v
end

local function int(n) return string.format('%.0f', n) end

-- A task's `body` (src/storage/redis/codec.ts) as a table: JSON of an object, or the bare
-- creation time when the task keeps nothing else there.
local function bodyTable(json)
  local b = cjson.decode(json)
  return type(b) == 'table' and b or {}
end
