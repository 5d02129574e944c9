-- select and unpack with nils and ranges.
print(select(1, "a", "b", "c"))
print(select(-1, "a", "b", "c"))
print(select(-2, "a", "b", "c"))
print(select("#"), select("#", nil, nil))
local t = {1, nil, 3}
print(unpack(t, 1, 3))
print(unpack({}, 1, 2))
local function f(...) return select("#", ...), ... end
print(f(unpack({1, 2, 3})))
print(f(unpack({1, 2, 3}, 2)))
local a, b, c = unpack({"x", "y"})
print(a, b, c)
a, b, c = c, unpack({"p", "q", "r"})
print(a, b, c)
