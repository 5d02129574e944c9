-- Scopes: shadowing in blocks, functions and loops.
local x = "outer"
do
  local x = "inner"
  print(x)
  do local x = x .. "+" print(x) end
end
print(x)
local function f(x) x = x or "default"; return x end
print(f(), f("arg"), x)
for x = 1, 2 do local x = x * 10 print(x) end
print(x)
local a, a = 1, 2
print(a)
local t = {}
for i = 1, 3 do
  local i = i * 2
  t[#t + 1] = i
end
print(table.concat(t, ","))
if true then local x = "if" print(x) end
print(x)
local function g()
  local x = "g"
  local function h() return x end
  x = "changed"
  return h()
end
print(g())
