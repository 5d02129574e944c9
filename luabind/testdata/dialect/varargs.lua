-- Varargs: select, ..., adjustment to one value, tables of varargs.
local function count(...) return select("#", ...) end
print("count", count(), count(nil), count(1, nil, 3), count(nil, nil))
local function second(...) return (select(2, ...)) end
print("second", second("a", "b", "c"))
local function tail(...) return select(2, ...) end
print("tail", tail(1, 2, 3))
local function pack(...) return {n = select("#", ...), ...} end
local p = pack(1, nil, 3)
print("pack", p.n, p[1], p[2], p[3])
local function first(...) local a = ... return a end
print("first", first(7, 8))
local function passthrough(...) return ... end
print("pass", passthrough(1, 2, 3))
print("adjusted", (passthrough(1, 2, 3)))
print("middle", passthrough(1, 2), passthrough(3, 4))
local function sum(...)
  local s = 0
  for i = 1, select("#", ...) do s = s + (select(i, ...)) end
  return s
end
print("sum", sum(1, 2, 3, 4))
local t = {passthrough(1, 2), passthrough(3, 4)}
print("ctor", #t, t[1], t[2], t[3])
print("unpack", unpack({1, 2, 3}))
print("unpack range", unpack({1, 2, 3, 4}, 2, 3))
local function va_assign(...)
  local x, y = ...
  x, y = y, x
  return x, y
end
print("swap varargs", va_assign("a", "b"))
