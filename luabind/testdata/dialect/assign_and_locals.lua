-- and/or assigned to existing locals: a unary, relational or arithmetic
-- left operand (`w = not w and w` kept 3 in gopher-lua 1.1.2).
local g1 = false
local l5 = false
l5 = (not g1 and l5)
print("a", l5)
local x = 7
local c = 1
x = (c == 1 and x)
print("b", x)
local y = 5
y = (-c < 0) and y
print("c", y)
local z = "s"
local n = 2
z = (n + 1 > 2) and z or "no"
print("d", z)
local w = 3
w = not w and w
print("e", w)
local v = 4
v = (v > 3) and v
print("f", v)
local u = {1}
u = #u == 1 and u
print("g", type(u))
local q = 9
q = (q .. "") == "9" and q
print("h", q)
