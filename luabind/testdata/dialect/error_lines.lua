-- The line of a runtime error, as error messages report it.
local function line(f, ...)
  local ok, m = pcall(f, ...)
  if ok then return "no error" end
  return (string.match(tostring(m), ":(%d+):")) or tostring(m)
end
print(line(function() local t; return t.x end))
print(line(function()
  local a = 1
  return a + {}
end))
print(line(function()
  local s = "x"
  local n = #s
  return n .. {}
end))
print(line(function() return ({})() end))
print(line(function()
  local t = setmetatable({}, {__index = function(t, k)
    error("no field " .. k)
  end})
  return t.missing
end))
print(line(function() error("custom") end))
print(line(function()
  local x, y = 1
  x, y = y, x.z
end))
print(line(function()
  local data = {1, 2, 3}
  for i = 1, 4 do
    local v = data[i] + 1
  end
end))
