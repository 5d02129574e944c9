-- string library: sub, upper, lower, len, rep, reverse, byte, char.
local s = "Hello, World"
print(s:sub(1, 5), s:sub(-5), s:sub(8), s:sub(0), s:sub(5, 2) == "")
print(s:upper(), s:lower(), #s, s:len())
print(("ab"):rep(3), ("x"):rep(0) == "", s:reverse())
print(s:byte(1), s:byte(-1), string.char(72, 105))
print(string.byte("abc", 1, 3))
print(("%d items"):format(3))
print(#"", ("a"):rep(3, ","))
print(string.len("\0ab"), ("a\0b"):byte(2))
print("concat " .. 1 .. " " .. 2.5 .. " " .. -3)
print(tostring(nil), tostring(true), tostring("s"), tostring(12))
print(10 == "10", "abc" < "abd", "Z" < "a", "" < "a")
