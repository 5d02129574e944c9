-- Multiple results: a final call or ... fills the remaining targets, one
-- anywhere else gives one value, extra expressions are still evaluated.
local function three() return 1, 2, 3 end
local function none() end
local a, b, c = 0, 0, 0
a, b = three()
print("two of three", a, b)
a, b, c = 9, three()
print("9 then", a, b, c)
a, b, c = three(), 10
print("first only", a, b, c)
a, b, c = (three())
print("parens", a, b, c)
a, b = none()
print("none", a, b)
a, b, c = b, three()
print("b then", a, b, c)
local calls = 0
local function count() calls = calls + 1; return calls end
a = 1, count(), count()
print("extra evaluated", a, calls)
local function va(...)
  local x, y, z = "x", "y", "z"
  x, y, z = z, ...
  return x, y, z
end
print("vararg", va(1, 2))
print("vararg-none", va())
local function va2(...)
  local p, q = 1, 2
  p, q = q, select("#", ...)
  return p, q
end
print("select", va2(nil, nil, nil))
local t = {}
t.a, t.b, t.c = three()
print("fields", t.a, t.b, t.c)
G1, G2 = three()
print("globals", G1, G2)
-- one target, more values: the extra ones still see the old value
local s = 1
local seen
local function see(v) seen = v; return v end
s = 2, see(s)
print("extra reads the target", s, seen)
