--[[
  The one monotonic counter, and seq-prefixed members.
]]
--- @include "prefix"
--- @include "values"

-- Seqs this call reserved and has not handed out yet (seqNext..seqLast), and the size of the
-- next reservation. Blocks double (1, 2, 4, ... SEQ_BLOCK_MAX), so a call that needs k seqs
-- makes about log2(k) INCRBYs, not k INCRs, and leaves fewer unused than it used: a seq is
-- unique and increasing, never consecutive by promise, so the gaps are harmless.
local seqNext, seqLast, seqBlock = 1, 0, 1 --- @per-call
local SEQ_BLOCK_MAX = 256

local function nextSeq()
  if seqNext > seqLast then
    seqLast = redis.call('INCRBY', P .. 'seq', text(seqBlock))
    seqNext = seqLast - seqBlock + 1
    if seqBlock < SEQ_BLOCK_MAX then seqBlock = seqBlock * 2 end
  end
  local seq = seqNext
  seqNext = seq + 1
  return seq
end

-- The first of `k` consecutive new seqs, above every seq handed out before: what is left of
-- the reservation is dropped when it holds fewer than `k`.
local function seqRange(k)
  if seqLast - seqNext + 1 < k then
    seqLast = redis.call('INCRBY', P .. 'seq', text(k))
    seqNext = seqLast - k + 1
  end
  local first = seqNext
  seqNext = first + k
  return first
end

-- Fixed-width so members with equal scores sort by seq (FIFO among equals).
local function seqMember(seq, id) return string.format(SEQ_FORMAT, seq) .. id end
