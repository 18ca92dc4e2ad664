--[[
  hitRateLimit: counts one hit against a sliding-window limit shared by every instance
  (failed logins per client address, for one).

  FLAGS allow-oom      (a few bytes that expire: a full Redis must not lock everyone out)
  KEYS[1]  key prefix `<name>:{<tag>}:` (derives rate:<key>)
  ARGV[1]  the limiter's key, e.g. `login:203.0.113.7`
  ARGV[2]  limit: hits allowed in any window, 1..1000
  ARGV[3]  windowMs
  ARGV[4]  now (epoch ms)

  Keys: rate:<key> list of the counted hits' times (ms), most recent first, at most `limit`
  kept. PEXPIRE (Redis's clock) only collects it windowMs after its last hit; the decision
  uses the caller's now, like the embedded store (src/storage/memory/rate-limits.ts).
  A hit is allowed, and counted, when fewer than `limit` kept hits are inside
  (now - windowMs, now]; a refused hit is not counted.
  Returns {1, 0} when allowed, or {0, retryAfterMs}: ms until the oldest hit inside the
  window leaves it (at least 1).
]]
--- @include "prefix"
local k = P .. 'rate:' .. ARGV[1]
local limit, window, now = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local inside, oldest = 0, nil
for _, v in ipairs(redis.call('LRANGE', k, 0, limit - 1)) do
  local at = tonumber(v)
  if at and at > now - window then
    inside = inside + 1
    if not oldest or at < oldest then oldest = at end
  end
end
if inside >= limit then
  return {0, math.max(1, oldest + window - now)}
end
redis.call('LPUSH', k, ARGV[4])
redis.call('LTRIM', k, 0, limit - 1)
redis.call('PEXPIRE', k, window)
return {1, 0}
