-- A for header that reads a local which a call in the same header changes
-- through an upvalue: Lua 5.1 reads the local when the operator runs, after
-- the call; gopher-lua 1.1.2 read it before in for headers only.
local n = 1
local function f() n = 100 return 5 end
for i = (n + f()) % 1000, 2000, 1000 do print("numeric", i) end
n = 1
for i = 1, n + f(), 100 do print("limit", i) end
n = 1
for _, v in ipairs({n + f(), n}) do print("generic", v) end
n = 1
local function iter(t, i) i = i + 1 if t[i] then return i, t[i] end end
for i, v in iter, {n * 2 + f()}, 0 do print("iter", i, v) end
local out = {}
for i = 1, 3 do out[#out + 1] = i end
print("plain", table.concat(out, ","))
