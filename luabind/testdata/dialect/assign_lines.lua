-- Runtime errors inside rewritten statements keep their lines.
local function where(f)
  local ok, msg = pcall(f)
  return ok, (string.match(tostring(msg), "^[^:]+:(%d+):"))
end
local a, b = 1, 2
print("rhs", where(function()
  a, b = b, a + nil
end))
print("multiline", where(function()
  a, b =
    b,
    a .. {}
end))
print("store", where(function()
  local t = nil
  a, t.x = t, a
end))
print("key", where(function()
  local t = {}
  local n = nil
  t[n], a = a, b
end))
print("call", where(function()
  a, b = b, (nil)()
end))
print("index", where(function()
  local u
  b, a = a, u.field
end))
print("ok", a, b)
