--[[
  The one monotonic counter, and seq-prefixed members.
]]
--- @include "prefix"

local function nextSeq() return redis.call('INCR', P .. 'seq') end

-- Fixed-width so members with equal scores sort by seq (FIFO among equals).
local function seqMember(seq, id) return string.format(SEQ_FORMAT, seq) .. id end
