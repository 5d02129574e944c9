-- and/or into an existing local that a later operand reads: gopher-lua 1.1.2
-- copied an intermediate operand into the local first (TESTSET).
g1 = 1
g2 = 5
local l3 = 1
local l4 = 9
local l5 = false
l5 = ((((l4 > g2) and not l5) or true) and l5)
print("l5", l5)
l3 = (math.min(((l3 + (l3 * 3)) + math.max(math.max(0, g1), (l5 and l3 or g1))), math.max(g2, #string.upper("b")))) % 1000
print("l3", l3)
local l7 = (math.max(l4, ((l5 or l5) and (l3 + 6) or (g1 + g1)))) % 1000
print("l7", l7)
local t = {a = 1}
local x = 5
x = (t.a or t.b) and x
print("or-and", x)
local y = "y"
y = (t.b or t.a) and y .. "!"
print("or-and-concat", y)
local z = 2
z = (t.a and t.a + 1 or 0) + z
print("arith", z)
local w = 3
local function getw() return w end
w = (t.a or false) and getw()
print("upvalue read", w)
local v = 4
v = (t.b or t.a) or v
print("or-or", v)
