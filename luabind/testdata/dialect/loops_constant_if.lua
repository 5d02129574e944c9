-- A loop whose body starts with a statement compiled to a bare jump
-- (yuin/gopher-lua#540): gopher-lua 1.1.2 sent the jump back astray.
local out = {}
for i, v in ipairs({1, 2, 3}) do
  if false then out[#out + 1] = "x" end
  out[#out + 1] = v
end
print("forin-if", table.concat(out, ","))
out = {}
local n = 0
while true do
  if nil then out[#out + 1] = "x" end
  n = n + 1
  out[#out + 1] = n
  if n >= 3 then break end
end
print("while-if", table.concat(out, ","))
out = {}
n = 0
repeat
  if false then out[#out + 1] = "x" end
  n = n + 1
  out[#out + 1] = n
until n >= 3
print("repeat-if", table.concat(out, ","))
out = {}
for i, v in ipairs({1, 2, 3}) do
  while false do end
  out[#out + 1] = v
end
print("forin-while", table.concat(out, ","))
out = {}
for i, v in ipairs({1, 2, 3}) do
  if true then
  else
    out[#out + 1] = "x"
  end
  out[#out + 1] = v
end
print("forin-iftrue-else", table.concat(out, ","))
out = {}
for k, v in pairs({a = 1}) do
  do
    if false and v then out[#out + 1] = "x" end
  end
  out[#out + 1] = k
end
print("forin-do", table.concat(out, ","))
out = {}
for i, v in ipairs({4, 5}) do
  local x = false and 1 or v
  out[#out + 1] = x
end
print("forin-andor", table.concat(out, ","))
out = {}
n = 0
while (false and n) or n < 3 do
  n = n + 1
  out[#out + 1] = n
end
print("while-cond", table.concat(out, ","))
local function inner()
  local r = {}
  for _, v in ipairs({7, 8}) do
    if false then return "never" end
    r[#r + 1] = v
  end
  return table.concat(r, ",")
end
print("function", inner())
