--[[
  restamp: moves a store's layout stamp from one version to the next, for a migration whose
  new layout only adds keys or fields that read as the old behaviour when absent, so nothing
  stored needs rewriting.

  FLAGS allow-oom      (a few bytes, once: a full Redis must not stop a node from starting)
  KEYS[1]  key prefix `<name>:{<tag>}:` (derives meta)
  ARGV[1]  the layout migrated from
  ARGV[2]  the layout migrated to

  Stamps ARGV[2] only while meta.layout says ARGV[1] (absent = UNVERSIONED_LAYOUT), so two
  nodes starting at once, or a crashed init() run again, stamp it once. Returns the layout
  the store holds afterwards.
]]
--- @include "migration-layout"

local found = storedLayout(KEYS[1])
if found ~= ARGV[1] then return found end
stampLayout(KEYS[1], ARGV[2])
return ARGV[2]
