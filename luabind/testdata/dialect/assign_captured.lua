-- A call on the right changes a captured local the statement also uses:
-- Lua 5.1 evaluates every expression before it assigns anything.
local a = 1
local function set_a() a = 10; return 5 end
local b
a, b = 2, set_a()
print("upmod", a, b)
local c = 1
local function get_c() return c end
local d
c, d = 2, get_c()
print("upread", c, d)
-- a table key that a call changes: read after the call, as Lua 5.1 does
local t = {}
local i = 1
local function bump() i = 2; return 0 end
t[i] = bump()
print("key", t[1], t[2])
t = {}
i = 1
t[i], t.z = bump(), 0
print("key2", t[1], t[2])
-- a value that a call changes
local v = 1
local function setv() v = 9; return 0 end
t = {}
t.x, t.y = v, setv()
print("value", t.x, t.y)
-- an object that a call replaces
local o, o2 = {}, {}
local function swapo() o = o2; return 0 end
o.x, t.q = swapo(), 1
print("object", o.x, o2.x)
-- a partial assignment seen through a closure after an error
local p1, p2 = "p1", "p2"
local function peek() return p1 .. "/" .. p2 end
local ok = pcall(function()
  p1, p2 = "new", nil .. "x"
end)
print("partial", ok, peek())
