-- x = <non-local> and y: gopher-lua 1.1.2 left x unchanged when the left
-- operand was false or nil (TEST instead of TESTSET into the local).
local x = 5
x = NOPE and 1
print("global-and", x)
local t = {}
x = 5
x = t.nope and 1
print("field-and", x)
local function f() return false end
x = 5
x = f() and 1
print("call-and", x)
x = 5
x = not x and 1
print("not-and", x)
local y = 5
local z = false
y = z and 1
print("local-and", y)
local u = false
local function g() y = u and 1 end
y = 5
g()
print("upvalue-target", y)
G = 5
G = NOPE and 1
print("global-target", G)
x = 5
x = f() and 1 or nil
print("call-and-or", x)
local a = 5
a = (f() and 1)
print("paren", a)
local b = 5
b = f() or nil
print("call-or", b)
local c = 5
c = NOPE and 1 or false
print("and-or", c)
local d = 5
d = f() and 1, 2
print("multi", d)
local e = 5
local e2
e, e2 = f() and 1, 2
print("multi2", e, e2)
local h = 5
local r = {f() and 1}
print("ctor", r[1])
print("arg", (f() and 1))
local k = 5
k = #"" == 1 and 1
print("rel-ok", k)
