-- math.min, math.max and math.abs as Lua 5.1 has them.
print(math.min(3, 1, 2), math.max(3, 1, 2), math.min(5), math.max(-1))
print(math.min("3", 2), math.min(2, "3"), math.max("10", 9))
print(math.min(0/0, 1) ~= math.min(0/0, 1), math.min(1, 0/0), math.max(1, 0/0))
print(math.abs(-2), math.abs(2), math.abs(0), math.abs(-0.5), math.abs("-3"))
print((pcall(math.min)), (pcall(math.max, 1, "x")), (pcall(math.abs)), (pcall(math.min, 1, {})))
print(math.min(1.5, 1.25, 1.75), math.max(-1.5, -1.25))
print(math.huge == math.max(1, math.huge), -math.huge == math.min(-math.huge, 0))
