-- Tables: constructors, nested tables, length of sequences, references.
local t = {1, 2, 3, x = "x", ["y z"] = "yz", [10] = "ten", [1.5] = "f"}
print(t[3], t.x, t["y z"], t[10], t[1.5])
local nested = {a = {b = {c = "deep"}}}
print(nested.a.b.c)
nested.a.b, nested.a = nested.a, nested.a.b
print(nested.a.c, nested.a.b == nil)
local r1 = {}
local r2 = r1
r2.v = 1
print(r1.v, r1 == r2)
local list = {}
for i = 1, 5 do list[i] = i end
list[#list + 1] = 6
print(#list, list[6])
local m = {[true] = "t", [false] = "f"}
print(m[true], m[false])
local counts = {}
for _, c in ipairs({"a", "b", "a"}) do counts[c] = (counts[c] or 0) + 1 end
print(counts.a, counts.b)
local grid = {}
for i = 1, 3 do
  grid[i] = {}
  for j = 1, 3 do grid[i][j] = i * j end
end
grid[1][2], grid[2][1] = grid[2][1] + 100, grid[1][2] + 200
print(grid[1][2], grid[2][1], grid[3][3])
print(next({}), type(next({5})))
