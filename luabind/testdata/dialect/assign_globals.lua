-- Globals as targets, alone and mixed with locals and fields.
G1, G2 = 1, 2
G1, G2 = G2, G1
print("globals", G1, G2)
local l = "local"
G3 = "global"
l, G3 = G3, l
print("mixed", l, G3)
local t = {v = "field"}
G4 = "g4"
G4, t.v = t.v, G4
print("field", G4, t.v)
-- the register-shift miscompile: a global left of a table target whose
-- value is a plain local
G5 = 5
local x = 7
local u = {}
G5, u.a = G5, x
print("shift", G5, u.a)
G6, G7, u.b = "six", "seven", x
print("shift2", G6, G7, u.b)
local function up()
  local z = 3
  return function(w)
    z, u.c = w, z
    return z
  end
end
print("shift-upvalue", up()(9), u.c)
local lt = {}
local lv
lv, lt.k = tostring(1), x
print("shift-local-call", lv, lt.k)
