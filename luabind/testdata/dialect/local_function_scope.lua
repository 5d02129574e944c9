-- local f = function ... end: the body sees the f from before, not itself
-- (gopher-lua 1.1.2 compiled it like `local function f`).
local out = {}
local print2 = print
local print = function(...)
  out[#out + 1] = table.concat({...}, " ")
  return print(...)
end
print("wrapped", "call")
print2("collected", out[1])
local x = 1
local x = function() return x end
print2("outer", x())
local function fact(n) if n <= 1 then return 1 end return n * fact(n - 1) end
print2("recursive", fact(5))
local tostring = function(v) return "<" .. tostring(v) .. ">" end
print2("shadow", tostring(5))
local count = 0
local count = function() return (count or 0) + 1 end
print2("count", count())
