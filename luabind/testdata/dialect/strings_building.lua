-- Building strings in loops, numbers in concatenation, table.concat.
local parts = {}
for i = 1, 10 do parts[#parts + 1] = i * i end
print(table.concat(parts, "+"))
local s = ""
for i = 1, 5 do s = s .. i .. (i < 5 and "," or "") end
print(s)
local csv = "name,age\nann,31\nbob,27"
local rows = {}
for line in csv:gmatch("[^\n]+") do
  local name, age = line:match("([^,]+),([^,]+)")
  rows[#rows + 1] = name .. "=" .. age
end
print(table.concat(rows, ";"))
local words = {}
for w in ("a quick brown fox"):gmatch("%S+") do table.insert(words, 1, w) end
print(table.concat(words, " "))
print(("x"):rep(3, "-"), ("ab"):rep(2) .. 1 .. 2)
local key, value = ("level=7"):match("(%w+)=(%w+)")
key, value = value, key
print(key, value, tonumber(key) + 1)
