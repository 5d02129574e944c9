-- table library: insert, remove, concat, sort, unpack, maxn.
local t = {}
table.insert(t, "a")
table.insert(t, "c")
table.insert(t, 2, "b")
print(table.concat(t, ","), #t)
print(table.remove(t), table.concat(t, ","))
print(table.remove(t, 1), table.concat(t, ","))
local n = {5, 2, 8, 1, 9, 3}
table.sort(n)
print(table.concat(n, " "))
table.sort(n, function(a, b) return a > b end)
print(table.concat(n, " "))
local words = {"pear", "Apple", "fig", "banana"}
table.sort(words)
print(table.concat(words, " "))
table.sort(words, function(a, b) return #a < #b or (#a == #b and a < b) end)
print(table.concat(words, " "))
print(table.concat({1, 2, 3}), table.concat({}, ","), table.concat({1, "x", 2}, "-", 2, 3))
print(table.maxn({1, 2, nil, 4}), table.maxn({}))
local records = {{name = "b", age = 2}, {name = "a", age = 3}, {name = "c", age = 1}}
table.sort(records, function(x, y) return x.age < y.age end)
print(records[1].name, records[2].name, records[3].name)
print(#{1, 2, 3}, #{}, #{n = 1})
print(select("#", unpack({1, 2, nil, 4}, 1, 4)))
local q = {}
for i = 1, 5 do q[#q + 1] = i * i end
print(#q, q[#q])
