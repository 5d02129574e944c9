-- pcall and error: values, levels, positions ("file:line:" is the same in
-- both; the wording of runtime errors is not compared, nor error levels
-- above 1 or errors raised straight from a Go function, see the harness).
print(pcall(error, "plain", 0))
print(type(select(2, pcall(error, {code = 7}))))
local ok, e = pcall(error, {code = 7})
print(ok, type(e), e.code)
print(pcall(function() error("here") end))
print(pcall(function() error("level1", 1) end))
local function check(x) if type(x) ~= "number" then error("want number") end return x end
print(pcall(function()
  return check("s")
end))
print(pcall(function() local x = nil; return x.y end) == false)
local ok2, msg = pcall(function() local x = nil; return x.y end)
print(ok2, msg:match("^([^:]+:%d+):"))
print(select("#", pcall(function() return 1, 2, 3 end)), pcall(function() return 1, 2, 3 end))
print(pcall(pcall, error, "nested", 0))
print(pcall(function() assert(false, "assert message") end))
print(pcall(assert, 1, "unused"))
print(pcall(function() assert(nil) end))
local function thrower(n) if n == 0 then error("bottom", 0) end return thrower(n - 1) end
print(pcall(thrower, 5))
print(xpcall(function() error("x", 0) end, function(m) return "handled " .. m end))
print(xpcall(function() return "fine" end, print))
local errs = {}
for i = 1, 3 do
  local ok3, m = pcall(function() if i % 2 == 1 then error("odd " .. i, 0) end return i end)
  errs[#errs + 1] = tostring(ok3) .. ":" .. tostring(m)
end
print(table.concat(errs, " "))
print(pcall(error, nil))
