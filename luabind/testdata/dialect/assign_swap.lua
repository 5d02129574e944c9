-- The cases of issue 7 and yuin/gopher-lua#440: a right-hand side reads a
-- local that the same statement assigns.
local a, b = 1, 2
a, b = b, a
print("swap", a, b)
local x, y = 0, 0
x, y = x + 1, x + y
print("440", x, y)
-- heroiclabs/nakama#1238
local p = 1
local q = 2
p, q = q, p
print("nakama", p, q)
-- rotate three
local r, s, t = "r", "s", "t"
r, s, t = s, t, r
print("rotate", r, s, t)
-- fibonacci steps
local f0, f1 = 0, 1
for _ = 1, 10 do
  f0, f1 = f1, f0 + f1
end
print("fib", f0, f1)
-- gcd by swapping
local m, n = 1071, 462
while n ~= 0 do
  m, n = n, m % n
end
print("gcd", m, n)
-- a target assigned twice: Lua 5.1 assigns right to left, the first wins
local d = 0
d, d = 1, 2
print("dup", d)
local e1, e2 = "e1", "e2"
e1, e2, e1 = e2, e1, "third"
print("dup3", e1, e2)
-- reads of the targets inside other expressions
local u, v = 3, 4
u, v = u * v, u + v
print("expr", u, v)
u, v = v .. "", tostring(u)
print("tostring", u, v)
local w, z = true, false
w, z = z, not w
print("bool", w, z)
-- fewer values than targets
local g, h = 1, 2
g, h = h
print("fewer", g, h)
-- more values than targets
g, h = h, g, g + 100
print("more", g, h)
