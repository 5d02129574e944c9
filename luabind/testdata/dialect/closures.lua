-- Closures and upvalues: counters, shared upvalues, loop variables.
local function counter(start)
  local n = start
  return function() n = n + 1; return n end, function() return n end
end
local inc, get = counter(10)
inc(); inc()
print("counter", get(), inc(), get())
-- two closures share one upvalue
local function pair()
  local v = 0
  local function set(x) v = x end
  local function read() return v end
  return set, read
end
local set, read = pair()
set(42)
print("shared", read())
-- each iteration has its own loop variable
local fs = {}
for i = 1, 3 do fs[#fs + 1] = function() return i end end
print("numeric", fs[1](), fs[2](), fs[3]())
fs = {}
for _, v in ipairs({"a", "b"}) do fs[#fs + 1] = function() return v end end
print("generic", fs[1](), fs[2]())
-- a local declared inside a while body is fresh each time
fs = {}
local k = 0
while k < 3 do
  k = k + 1
  local kk = k * 10
  fs[k] = function() kk = kk + 1; return kk end
end
print("while", fs[1](), fs[1](), fs[2](), fs[3]())
-- nested closures three levels deep
local function outer()
  local a = 1
  return function()
    local b = 2
    return function()
      a, b = a + b, a
      return a, b
    end
  end
end
local deep = outer()()
deep()
print("deep", deep())
-- recursion through an upvalue
local fib
fib = function(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
print("fib", fib(15))
