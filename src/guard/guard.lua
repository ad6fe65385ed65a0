-- guard.lua: retry's budget and breaker rules (src/guard/budget.c) on one
-- Redis hash, atomically, on the server's clock; times in microseconds.
-- The build embeds this file in retry (src/guard/budget.c), after a line of
-- locals for each code of src/guard/guardcodes.h (BREAKER_OPEN, ADMIT_PROBE,
-- RUN_GAVE_UP, MILLI, KEY_TTL_MS, ...), so that the codes are written
-- once.  Change a rule in budget.c and the same rule here:
-- tests/rules.bats and tests/fleet.bats run one table of cases through
-- both.
--
-- KEYS[1]: the hash.  ARGV:
--   attempt MAX RATIO OK REFILL                   -> {allowed, tokens}
--   admit COOLDOWN LEASE ID CAP                   -> {verdict, wait, state}
--   report FAILURES COOLDOWN CAP END ID PERMILLE  -> {counted}
--   peek MAX REFILL               -> {tokens, state, failures, wait}
--   reset BUDGET                                  -> {1}
-- One more argument after these is the time to use instead of the
-- server's: the tests' clock.  retry never sends it.
if redis.replicate_commands then redis.replicate_commands() end
local key, op, a = KEYS[1], ARGV[1], {}
local arity = {attempt = 4, admit = 4, report = 6, peek = 2, reset = 1}
if not arity[op] then
  return redis.error_reply('retry: unknown operation ' .. tostring(op))
end
for i = 2, #ARGV do a[i - 1] = tonumber(ARGV[i]) end
local now = a[arity[op] + 1]
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local names = {'tokens', 'state', 'failures', 'until', 'cooldown', 'probe',
  'at'}
local got = redis.call('HMGET', key, unpack(names))
local r = {}
for i, n in ipairs(names) do r[n] = tonumber(got[i]) or 0 end
r.tokens = tonumber(got[1]) or -1

local function save()
  local kv = {}
  for _, n in ipairs(names) do
    kv[#kv + 1] = n
    kv[#kv + 1] = string.format('%.0f', r[n])
  end
  redis.call('HSET', key, unpack(kv))
  -- a day untouched, longer than any cooldown: the key goes
  redis.call('PEXPIRE', key, KEY_TTL_MS)
end

local function open(cooldown)
  r.state, r.cooldown, r['until'] = BREAKER_OPEN, cooldown, now + cooldown
end

-- budget_refill(): a token back for each whole REFILL since r.at.  The
-- quotient of two doubles may be one off near a whole number: the
-- remainder, exact below 2^53, puts it right.
local function refill(max, every)
  if r.tokens < 0 or r.tokens > max then r.tokens = max end
  if r.at == 0 or now <= r.at or r.tokens == max or every <= 0 then
    r.at = now
    return
  end
  local e = now - r.at
  local q = math.floor(e / every)
  e = e - q * every
  if e < 0 then q = q - 1 elseif e >= every then q = q + 1 end
  if q >= math.ceil((max - r.tokens) / MILLI) then
    r.tokens, r.at = max, now
  else
    r.tokens, r.at = r.tokens + q * MILLI, r.at + q * every
  end
end

-- budget_attempt()
local function attempt(max, ratio, ok, every)
  refill(max, every)
  if ok == 1 then r.tokens = math.min(max, r.tokens + ratio)
  else r.tokens = math.max(0, r.tokens - MILLI) end
  save()
  if r.tokens * 2 > max then return {1, r.tokens} end
  return {0, r.tokens}
end

-- breaker_admit()
local function admit(cooldown, lease, id, cap)
  if r.state == BREAKER_CLOSED then return {ADMIT_RUN, 0, r.state} end
  lease = math.max(lease, r.cooldown)
  -- further ahead than any rule sets: the server's clock went back
  if r['until'] - now > math.max(cap, cooldown, lease) then
    r['until'] = now
  end
  if now < r['until'] then
    return {ADMIT_REFUSED, r['until'] - now, r.state}
  end
  r.state, r.probe, r['until'] = BREAKER_PROBING, id, now + lease
  save()
  return {ADMIT_PROBE, 0, r.state}
end

-- next_cooldown(): twice the last, times the jitter, at most cap.  In
-- two parts, as budget.c does: 2c * permille passes 2^53, where a double
-- is no longer exact, once c is over about 42 days.
local function next_cooldown(c, cap, permille)
  if c >= cap / 2 then return cap end
  c = 2 * c
  c = (c - c % 1000) / 1000 * permille + math.floor(c % 1000 * permille / 1000)
  return math.min(cap, c)
end

-- breaker_report()
local function report(failures, cooldown, cap, e, probe, permille)
  if probe ~= 0 then
    if r.state ~= BREAKER_PROBING or r.probe ~= probe then return {0} end
    r.probe = 0
    if e == RUN_SUCCEEDED then
      r.state, r.failures, r['until'], r.cooldown = BREAKER_CLOSED, 0, 0, 0
    elseif e == RUN_GAVE_UP then
      open(next_cooldown(r.cooldown > 0 and r.cooldown or cooldown, cap,
          permille))
    else
      r.state, r['until'] = BREAKER_OPEN, now
    end
  elseif r.state ~= BREAKER_CLOSED or e == RUN_STOPPED then return {0}
  elseif e == RUN_SUCCEEDED then r.failures = 0
  else
    r.failures = r.failures + 1
    if r.failures >= failures then open(cooldown) end
  end
  save()
  return {1}
end

-- --guard-status: the record as it stands, the refill counted, unsaved
local function peek(max, every)
  refill(max, every)
  return {r.tokens, r.state, r.failures, math.max(0, r['until'] - now)}
end

-- --guard-reset: record_forget(), the budget's fields or the breaker's
if op == 'peek' then return peek(a[1], a[2]) end
if op == 'reset' then
  if a[1] == 1 then redis.call('HDEL', key, 'tokens', 'at')
  else redis.call('HDEL', key, unpack(names, 2, 6)) end
  return {1}
end
if op == 'attempt' then return attempt(a[1], a[2], a[3], a[4]) end
if op == 'admit' then return admit(a[1], a[2], a[3], a[4]) end
return report(a[1], a[2], a[3], a[4], a[5], a[6])
