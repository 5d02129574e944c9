-- and, or, not with nil and false; comparisons; the ternary idiom.
print(nil and 1, false and 1, 0 and 1, "" and 1)
print(nil or 1, false or nil, 0 or 1, nil or false)
print(not nil, not 0, not "", not not nil)
local function pick(c, a, b) return c and a or b end
print(pick(true, 1, 2), pick(false, 1, 2), pick(true, false, 2))
local x
x = x or {}
x.n = (x.n or 0) + 1
print(x.n)
local t = {}
local v = t.a and t.a.b
print(v)
t.a = {b = "deep"}
v = t.a and t.a.b
print(v)
local n = 5
local s = n > 3 and "big" or "small"
print(s, n == 5 and n ~= 4, 1 < 2 and 2 < 3)
local y = 1
y = (y > 0) and nil
print(y)
local z = "keep"
z = type(z) == "number" and z
print(z)
print(1 == 1.0, "1" == 1, nil == false, {} == {})
