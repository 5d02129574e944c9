-- Table fields as targets: t[i], t[j] = t[j], t[i] and the order in which
-- Lua 5.1 evaluates tables, keys and values (#158: a[i], i = 20, 2).
local t = {10, 20, 30}
t[1], t[3] = t[3], t[1]
print("swap", t[1], t[2], t[3])
local i, j = 1, 2
t[i], t[j] = t[j], t[i]
print("swapij", t[1], t[2], t[3])
-- the manual's example (§2.4.3)
local k = 3
local a = {}
k, a[k] = k + 1, 20
print("manual", k, a[3], a[4])
-- #158: a local used as key on the left, changed on the right
local n = 1
local b = {}
b[n], n = 20, 2
print("158", b[1], b[2], n)
-- ravi-compiler#54
local c, cb = {}, 10
c[cb], cb = 20, 30
print("ravi", c[10], c[30], cb)
-- the table itself is a target
local o = {name = "old"}
local old = o
o, o.name = {name = "new"}, "changed"
print("table-target", o.name, old.name)
local o2 = {name = "old"}
local keep2 = o2
o2.name, o2 = "changed", {name = "new"}
print("table-target2", o2.name, keep2.name)
-- nested fields and field swaps
local s = {pos = {x = 1, y = 2}}
s.pos.x, s.pos.y = s.pos.y, s.pos.x
print("nested", s.pos.x, s.pos.y)
-- #315
local r = {}
local dd = "e"
local f = 1
f, r.d = f, dd
print("315", f, r.d)
-- evaluation order: prefixes and keys on the left first, left to right,
-- then the values left to right, then the stores right to left
local log = {}
local function note(tag, v) log[#log + 1] = tag; return v end
local tt = setmetatable({}, {__newindex = function(t, k, v) log[#log + 1] = "set " .. k; rawset(t, k, v) end})
note("t1", tt)[note("k1", "x")], note("t2", tt)[note("k2", "y")] = note("v1", 1), note("v2", 2)
print("order", table.concat(log, ","))
print("values", tt.x, tt.y)
