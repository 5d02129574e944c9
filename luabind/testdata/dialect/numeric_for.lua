-- Numeric for: steps, negative steps, empty ranges, the loop variable is a
-- copy, the limits are evaluated once.
local out = {}
for i = 1, 5 do out[#out + 1] = i end
print("up", table.concat(out, ","))
out = {}
for i = 10, 1, -3 do out[#out + 1] = i end
print("down", table.concat(out, ","))
out = {}
for i = 1, 0 do out[#out + 1] = i end
print("empty", #out)
out = {}
for i = 0, 2, 0.5 do out[#out + 1] = i end
print("half", table.concat(out, ","))
out = {}
for i = 1, 3 do
  local j = i
  i = i * 100
  out[#out + 1] = j .. ":" .. i
end
print("copy", table.concat(out, ","))
local calls = 0
local function limit() calls = calls + 1; return 3 end
for _ = 1, limit() do end
print("limit once", calls)
local total = 0
for i = 1, 10 do
  if i % 2 == 0 then total = total + i end
  if i == 8 then break end
end
print("break", total)
local a, b = 0, 1
for _ = 1, 20 do a, b = b, a + b end
print("fib20", a)
