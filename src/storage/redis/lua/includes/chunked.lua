--[[
  Variadic commands over lists of any length.
]]

-- redis.call(cmd, key, list[from], ..., list[#list]) in chunks: unpack() is bounded by Lua's
-- C stack (~8000 values), and a claim of 4000 tasks has 8000 lease values. Chunks hold an
-- even number of values, so score/member pairs stay whole.
local function callChunked(cmd, key, list, from)
  for i = from or 1, #list, 4000 do redis.call(cmd, key, unpack(list, i, math.min(i + 3999, #list))) end
end
