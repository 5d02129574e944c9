-- and/or assigned to existing locals, with table fields on the left.
local t = {}
local v = t.nope and 1
print(v)
local w = 5
do local q = t.nope and 1; w = q end
print(w)
local z = 5
z = t.nope and t.nope.x or nil
print(z)
 z = 5
 z = (t.nope or t.nope2) and 1
print(z)
