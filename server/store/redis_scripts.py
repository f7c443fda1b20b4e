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

# KEYS: meta, log, lease, tail [, record, records]. ARGV: expected version, state, ttl_ms, lease
#   ("<owner> <token>", "" for no check), commit id, delta ("1": the state is a delta, appended
#   to the tail; else the new snapshot, the tail emptied) [, game, readers, record,
#   record_ttl_ms], event1, event2 … (the record part iff 6 KEYS).
# Returns {version, last_event}, or {-1} (no table) / {-2, stored version} (conflict) /
# {-3} (the lease is not held with that token: invariant 9).
COMMIT = """
local version = redis.call('HGET', KEYS[1], 'version')
if not version then return {-1} end
if ARGV[4] ~= '' and redis.call('GET', KEYS[3]) ~= ARGV[4] then return {-3} end
version = tonumber(version)
if version ~= tonumber(ARGV[1]) then return {-2, version} end
local first = 7
if #KEYS == 6 then
  first = 11
  if redis.call('EXISTS', KEYS[5]) == 0 then
    redis.call('HSET', KEYS[5], 'game', ARGV[7], 'readers', ARGV[8], 'record', ARGV[9])
    redis.call('SET', KEYS[6], ARGV[7])
    if tonumber(ARGV[10]) > 0 then
      redis.call('PEXPIRE', KEYS[5], ARGV[10])
      redis.call('PEXPIRE', KEYS[6], ARGV[10])
    end
  end
end
local last = tonumber(redis.call('HGET', KEYS[1], 'last_event'))
local count = #ARGV - first + 1
if count > 0 then
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
if last > 0 then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
return {version + 1, last}
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
