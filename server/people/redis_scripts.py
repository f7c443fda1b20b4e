"""The Lua scripts of ``RedisPlayerStore``: each touches the keys of one person (one slot)."""

# KEYS: the person's PARTS. ARGV: now, ttl_ms. The visit is counted and every key renewed.
TOUCH = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'last', ARGV[1])
for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
return 1
"""

# KEYS: p. ARGV: field, value. Change a field of a stored person: 1, or 0 if there is none.
SET_FIELD = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""

# KEYS: p, history, settled. ARGV: game id, class, rated, mu change, sigma change, summary,
#   newcomer mu, newcomer sigma, history cap, settled cap, now.
# Returns {-1} no such person, {0} taken already, {1, mu, games} applied.
SETTLE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1} end
if redis.call('ZSCORE', KEYS[3], ARGV[1]) then return {0} end
local ttl = redis.call('PTTL', KEYS[1])
redis.call('ZADD', KEYS[3], ARGV[11], ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[3], 0, -tonumber(ARGV[10]) - 1)
redis.call('LPUSH', KEYS[2], ARGV[6])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[9]) - 1)
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('PEXPIRE', KEYS[3], ttl)
end
if ARGV[3] ~= '1' then return {1, '', 0} end
local mu, sigma, games = 'mu:' .. ARGV[2], 'sigma:' .. ARGV[2], 'games:' .. ARGV[2]
if redis.call('HEXISTS', KEYS[1], games) == 0 then
  redis.call('HSET', KEYS[1], mu, ARGV[7], sigma, ARGV[8], games, 0)
end
local new_mu = redis.call('HINCRBYFLOAT', KEYS[1], mu, ARGV[4])
redis.call('HINCRBYFLOAT', KEYS[1], sigma, ARGV[5])
return {1, new_mu, redis.call('HINCRBY', KEYS[1], games, 1)}
"""

# KEYS: p, friends, asked, askers, blocked, sent. ARGV: op, other id, now (ms), max waiting,
#   per minute. One person's side of a friend operation. Returns -1 no such person, -2 too
#   many waiting, -3 too many this minute, 0 dropped (a request from someone blocked), 1 done.
SIDE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local op, other, now = ARGV[1], ARGV[2], tonumber(ARGV[3])
local result = 1
-- A request's score orders the lists newest first: strictly after the newest one already there,
-- so two requests in the same millisecond keep the order they came in.
local function after_newest(key)
  local top = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if top[2] and tonumber(top[2]) >= now then return tonumber(top[2]) + 1 end
  return now
end
if op == 'ask' then
  redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now - 60000)
  if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then return -2 end
  if redis.call('ZCARD', KEYS[6]) >= tonumber(ARGV[5]) then return -3 end
  redis.call('ZADD', KEYS[6], now, now .. ':' .. other)
  redis.call('PEXPIRE', KEYS[6], 60000)
  redis.call('ZADD', KEYS[3], after_newest(KEYS[3]), other)
elseif op == 'asked' then
  if redis.call('SISMEMBER', KEYS[5], other) == 1 then return 0 end
  redis.call('ZADD', KEYS[4], after_newest(KEYS[4]), other)
elseif op == 'befriend' then
  redis.call('SADD', KEYS[2], other)
  redis.call('ZREM', KEYS[3], other)
  redis.call('ZREM', KEYS[4], other)
elseif op == 'refused' then
  redis.call('ZREM', KEYS[3], other)
elseif op == 'refuse' then
  redis.call('ZREM', KEYS[4], other)
elseif op == 'unlink' or op == 'block' then
  redis.call('SREM', KEYS[2], other)
  redis.call('ZREM', KEYS[3], other)
  redis.call('ZREM', KEYS[4], other)
  if op == 'block' then redis.call('SADD', KEYS[5], other) end
elseif op == 'unblock' then
  redis.call('SREM', KEYS[5], other)
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then
  for i = 2, 5 do redis.call('PEXPIRE', KEYS[i], ttl) end
end
return result
"""
