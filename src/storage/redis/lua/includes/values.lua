--[[
  Conversions between Redis replies and Lua values.
]]

-- Number to text. Lua's own conversion (tostring, and passing a number to redis.call, which
-- Redis formats with "%.17g": ~2k instructions) goes through printf's floating-point path,
-- ~3x the cost of an integer format: pass redis.call text made here.
local function text(n)
  if n % 1 == 0 and n > -1e15 and n < 1e15 then return string.format('%d', n) end
  return tostring(n)
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
