-- Classes with metatables and methods that swap their fields.
local Account = {}
Account.__index = Account
function Account.new(owner, balance)
  local self = setmetatable({}, Account)
  self.owner, self.balance = owner, balance or 0
  return self
end
function Account:deposit(v) self.balance = self.balance + v; return self end
function Account:withdraw(v)
  if v > self.balance then return nil, "insufficient" end
  self.balance = self.balance - v
  return self.balance
end
function Account:swap(other)
  self.balance, other.balance = other.balance, self.balance
  self.owner, other.owner = other.owner, self.owner
end
local a, b = Account.new("ann", 100), Account.new("bob")
a:deposit(50):deposit(25)
print(a.balance, a:withdraw(500))
b:deposit(10)
a:swap(b)
print(a.owner, a.balance, b.owner, b.balance)
local Stack = {}
Stack.__index = Stack
function Stack.new() return setmetatable({n = 0}, Stack) end
function Stack:push(...)
  for i = 1, select("#", ...) do
    self.n = self.n + 1
    self[self.n] = (select(i, ...))
  end
end
function Stack:pop()
  local v = self[self.n]
  self[self.n], self.n = nil, self.n - 1
  return v
end
local s = Stack.new()
s:push(1, 2, 3)
print(s:pop(), s:pop(), s.n)
