--[[
  JSON text built by hand in hot paths (cheaper than cjson.encode of a table).
]]

-- Names (ids, types, pools) normally hold only [A-Za-z0-9_.:-] and need no escaping; a
-- cheap scan decides, cjson escapes the rest.
local function name(s)
  if string.find(s, '[^%w_.:%-]') then return cjson.encode(s) end
  return '"' .. s .. '"'
end
