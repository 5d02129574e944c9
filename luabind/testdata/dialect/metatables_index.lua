-- __index and __newindex: defaults, inheritance, proxies, rawget/rawset.
local defaults = setmetatable({}, {__index = function(t, k) return k .. "?" end})
print(defaults.foo, rawget(defaults, "foo"))
local Base = {kind = "base"}
Base.__index = Base
function Base.new(name) return setmetatable({name = name}, Base) end
function Base:describe() return self.kind .. ":" .. self.name end
local Derived = setmetatable({kind = "derived"}, {__index = Base})
Derived.__index = Derived
function Derived.new(name) return setmetatable(Base.new(name), Derived) end
function Derived:shout() return self:describe():upper() end
local d = Derived.new("dee")
print(d:describe(), d:shout(), getmetatable(d) == Derived)
local log = {}
local store = {}
local proxy = setmetatable({}, {
  __index = function(_, k) log[#log + 1] = "get " .. k; return store[k] end,
  __newindex = function(_, k, v) log[#log + 1] = "set " .. k; store[k] = v end,
})
proxy.a = 1
proxy.b = proxy.a + 1
proxy.a, proxy.b = proxy.b, proxy.a
print(store.a, store.b, table.concat(log, ","))
local ro = setmetatable({}, {__newindex = function() error("read-only", 0) end})
print(pcall(function() ro.x = 1 end))
rawset(ro, "x", 5)
print(ro.x)
local counts = setmetatable({}, {__index = function() return 0 end})
for _, w in ipairs({"a", "b", "a", "c", "a"}) do counts[w] = counts[w] + 1 end
print(counts.a, counts.b, counts.c, counts.d)
print(getmetatable("abc").__index == string, ("x"):rep(2))
