"""The Lua scripts of ``server.store.redis.RedisStore``: each one atomic step on one table.

Each runs in one round trip on the node holding the table's hash tag (``table_key``), so a step
is never half-applied: a commit checks the writer's lease (owner and fencing token: invariant 9)
and the expected version in the same step that appends the events (invariant 3).
"""

# KEYS: meta, tail. ARGV: state, ttl_ms. 1 = created, 0 = the id is taken.
CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[1], 'version', 0, 'last_event', 0, 'state', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""

# KEYS: the keys index. ARGV: key1, value1, key2, value2 … All or nothing: 1, or 0 if one is taken.
REGISTER_KEYS = """
for i = 1, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 1 then return 0 end
end
if #ARGV > 0 then redis.call('HSET', KEYS[1], unpack(ARGV)) end
return 1
"""

# KEYS: meta, log, lease, tail, segments [, record, records]. ARGV: expected version, state,
#   ttl_ms, lease ("<owner> <token>", "" for no check), commit id, delta ("1": the state is a
#   delta, appended to the tail; else the new snapshot, the tail emptied), segment ("" for none:
#   else the open events and this commit's, sealed), its first event number, the last event the
#   caller knows of [, game, readers, record, record_ttl_ms], event1, event2 … (the record part
#   iff 7 KEYS). A segment replaces the open log (the events since ``sealed``) only if it starts
#   right after ``sealed`` and the caller knew every event up to ``last_event``.
# Returns {version, last_event, 1 if sealed else 0}, or {-1} (no table) / {-2, stored version}
# (conflict) / {-3} (the lease is not held with that token: invariant 9) / {-4} (the segment
# does not match the open log: nothing stored; commit again without one).
COMMIT = """
local version = redis.call('HGET', KEYS[1], 'version')
if not version then return {-1} end
if ARGV[4] ~= '' and redis.call('GET', KEYS[3]) ~= ARGV[4] then return {-3} end
version = tonumber(version)
if version ~= tonumber(ARGV[1]) then return {-2, version} end
local meta = redis.call('HMGET', KEYS[1], 'last_event', 'sealed')
local last, sealed = tonumber(meta[1]), tonumber(meta[2] or '0')
local seal = ARGV[7] ~= ''
if seal and (tonumber(ARGV[8]) ~= sealed + 1 or tonumber(ARGV[9]) ~= last) then return {-4} end
local first = 10
if #KEYS == 7 then
  first = 14
  if redis.call('EXISTS', KEYS[6]) == 0 then
    redis.call('HSET', KEYS[6], 'game', ARGV[10], 'readers', ARGV[11], 'record', ARGV[12])
    redis.call('SET', KEYS[7], ARGV[10])
    if tonumber(ARGV[13]) > 0 then
      redis.call('PEXPIRE', KEYS[6], ARGV[13])
      redis.call('PEXPIRE', KEYS[7], ARGV[13])
    end
  end
end
local count = #ARGV - first + 1
if seal then
  redis.call('HSET', KEYS[5], ARGV[8], ARGV[7])
  redis.call('DEL', KEYS[2])
  last = last + count
  redis.call('HSET', KEYS[1], 'sealed', last)
elseif count > 0 then
  redis.call('RPUSH', KEYS[2], unpack(ARGV, first))
  last = last + count
end
if ARGV[6] == '1' then
  redis.call('RPUSH', KEYS[4], ARGV[2])
  redis.call('PEXPIRE', KEYS[4], ARGV[3])
  redis.call('HSET', KEYS[1], 'version', version + 1, 'last_event', last, 'commit', ARGV[5])
else
  redis.call('DEL', KEYS[4])
  redis.call('HSET', KEYS[1], 'version', version + 1, 'last_event', last, 'state', ARGV[2],
    'commit', ARGV[5])
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[5], ARGV[3])
if seal then return {version + 1, last, 1} end
return {version + 1, last, 0}
"""

# KEYS: meta, log, segments. ARGV: after. Returns {sealed, s1 first, s1 blob, s2 first, s2 blob,
# …, 0, open event, open event …}: the segments holding an event above ``after`` (in order, a 0
# after them) and the open events above it, read in one step; {} for no table. ``after`` -1:
# the open events only.
EVENTS = """
if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
local sealed = tonumber(redis.call('HGET', KEYS[1], 'sealed') or '0')
local after = tonumber(ARGV[1])
if after < 0 then after = sealed end
local reply = {sealed}
if after < sealed then
  local firsts = redis.call('HKEYS', KEYS[3])
  table.sort(firsts, function(a, b) return tonumber(a) < tonumber(b) end)
  for i = 1, #firsts do
    local ends = sealed
    if i < #firsts then ends = tonumber(firsts[i + 1]) - 1 end
    if ends > after then
      reply[#reply + 1] = tonumber(firsts[i])
      reply[#reply + 1] = redis.call('HGET', KEYS[3], firsts[i])
    end
  end
end
reply[#reply + 1] = 0
local open = redis.call('LRANGE', KEYS[2], math.max(after - sealed, 0), -1)
for i = 1, #open do reply[#reply + 1] = open[i] end
return reply
"""

# KEYS: meta, tail. Returns {version, last_event, snapshot, commit id, delta1, delta2 …} read in
# one step (a commit cannot land between the snapshot and its tail), or {} for no table.
LOAD = """
local meta = redis.call('HMGET', KEYS[1], 'version', 'last_event', 'state', 'commit')
if not meta[1] then return {} end
if not meta[4] then meta[4] = '' end
local tail = redis.call('LRANGE', KEYS[2], 0, -1)
for i = 1, #tail do meta[4 + i] = tail[i] end
return meta
"""

# KEYS: lease, meta. ARGV: owner, ttl_ms, fresh ("1": a new token even for the holder).
# Returns the fencing token, or 0 if another owner holds the lease. A fresh acquisition counts
# the table's ``fence`` up (kept in its meta hash, so it lives as long as the table).
ACQUIRE = """
local held = redis.call('GET', KEYS[1])
if held then
  local space = string.find(held, ' ', 1, true)
  if string.sub(held, 1, space - 1) ~= ARGV[1] then return 0 end
  if ARGV[3] ~= '1' then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return tonumber(string.sub(held, space + 1))
  end
end
local token = 1
if redis.call('EXISTS', KEYS[2]) == 1 then token = redis.call('HINCRBY', KEYS[2], 'fence', 1) end
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. token, 'PX', ARGV[2])
return token
"""

# KEYS: lease. ARGV: owner. 1 = released, 0 = not held by this owner.
RELEASE = """
local held = redis.call('GET', KEYS[1])
if held and string.sub(held, 1, #ARGV[1] + 1) == ARGV[1] .. ' ' then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
"""
