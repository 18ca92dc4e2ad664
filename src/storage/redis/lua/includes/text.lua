--[[
  Text search shared by listings. Lua lowercases ASCII only, so this is a pre-filter: it
  never rejects what JavaScript's toLowerCase().includes() would accept, and the caller
  applies the exact test to what passes.
]]
local function mayContain(text, qLower)
  if string.find(string.lower(text), qLower, 1, true) then return true end
  -- Non-ASCII text may lowercase differently in JavaScript: let the caller decide.
  return string.find(text, '[\128-\255]') ~= nil
end
