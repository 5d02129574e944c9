-- while and repeat: scopes, break, the until condition sees the body's
-- locals.
local n, out = 0, {}
while n < 5 do
  n = n + 1
  if n == 2 then
  elseif n == 4 then
    out[#out + 1] = "four"
  else
    out[#out + 1] = n
  end
end
print("while", table.concat(out, ","))
local i = 0
repeat
  local j = i * 2
  i = i + 1
until j >= 6
print("repeat", i)
local fs = {}
local k = 0
repeat
  k = k + 1
  local captured = k
  fs[k] = function() return captured end
until captured >= 3
print("repeat closures", fs[1](), fs[2](), fs[3]())
local depth = 0
while true do
  depth = depth + 1
  local inner = 0
  while true do
    inner = inner + 1
    if inner > depth then break end
  end
  if depth >= 3 then break end
end
print("nested break", depth)
