-- Generic for: ipairs, pairs (sorted before printing, the hash order
-- differs), custom stateless and stateful iterators.
local arr = {"a", "b", "c", nil, "e"}
local out = {}
for i, v in ipairs(arr) do out[#out + 1] = i .. "=" .. v end
print("ipairs stops at nil", table.concat(out, ","))
local map = {x = 1, y = 2, z = 3, 10, 20}
local keys = {}
for k in pairs(map) do keys[#keys + 1] = tostring(k) end
table.sort(keys)
print("pairs keys", table.concat(keys, ","))
local sum = 0
for _, v in pairs(map) do sum = sum + v end
print("pairs sum", sum)
local function range(n)
  local i = 0
  return function()
    i = i + 1
    if i <= n then return i, i * i end
  end
end
out = {}
for i, sq in range(4) do out[#out + 1] = i .. ":" .. sq end
print("stateful", table.concat(out, ","))
local function iter(t, i)
  i = i + 1
  if t[i] then return i, t[i] end
end
out = {}
for i, v in iter, {"p", "q"}, 0 do out[#out + 1] = v .. i end
print("stateless", table.concat(out, ","))
out = {}
for k, v in next, {5} do out[#out + 1] = k + v end
print("next", out[1])
-- modifying existing fields while traversing is allowed
local t = {a = 1, b = 2, c = 3}
for k, v in pairs(t) do t[k] = v * 10 end
print("modified", t.a, t.b, t.c)
-- nested loops with the same names
out = {}
for i = 1, 2 do
  for i, v in ipairs({"x", "y"}) do out[#out + 1] = i .. v end
  out[#out + 1] = "|" .. i
end
print("nested", table.concat(out, ","))
