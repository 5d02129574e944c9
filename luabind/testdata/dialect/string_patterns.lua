-- Lua patterns: find, match, gmatch, gsub.
local s = "the quick brown fox 42 jumps 7 times"
print(s:find("quick"), s:find("o", 13), s:find("xyz"))
print(s:find("q.i"), s:find(".", 1, true), ("a.b"):find(".", 1, true))
print(s:match("%d+"), s:match("(%a+) (%a+)"), s:match("(%d+)%D+(%d+)"))
print(s:match("^the"), s:match("times$"), (s:match("^quick")))
local words = {}
for w in s:gmatch("%a+") do words[#words + 1] = w end
print(#words, words[1], words[#words])
local pairs_ = {}
for k, v in ("a=1, b=2, c=3"):gmatch("(%w+)=(%w+)") do pairs_[#pairs_ + 1] = k .. v end
print(table.concat(pairs_, ";"))
print(s:gsub("o", "0"))
print(s:gsub("%d+", function(d) return "<" .. d * 2 .. ">" end))
print(("hello world"):gsub("(%w+)", "%1!"))
print(("abc"):gsub("", "-"))
print(("x = 1, y = 2"):gsub("(%w+) = (%w+)", "%2 = %1"))
print(("$name is $age"):gsub("%$(%w+)", {name = "Bob", age = 42}))
print(("  trim me  "):match("^%s*(.-)%s*$") .. "|")
print(("[test]"):find("[", 1, true), ("a+b"):gsub("%+", "-"))
print(("key: value"):match("(%w+):%s*(%w+)"))
print(("2024-01-15"):match("(%d+)-(%d+)-(%d+)"))
print(("%bxy"):len(), ("f(a(b)c)d"):match("%b()"))
print(("THE (quick) fox"):find("%((%a+)%)"))
print(("one;two;;three"):gsub(";;", ";"))
