package luabind

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// table.sort is Lua 5.1's: the outputs below are PUC Lua 5.1's for the
// same programs (equal elements land in the same places; a comparator that
// is not a strict order is refused), except that errors carry the line of
// the script, as every error raised by a Go function does here, and an
// argument error names no function, as gopher-lua's does not.
func TestTableSortIsLua51s(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"numbers", `local t = {5, 3, 8, 1, 9, 2, 7, 3, 3, 0, -1, 12, 4} table.sort(t) show(t)`, "-1 0 1 2 3 3 3 4 5 7 8 9 12"},
		{"strings", `local t = {"b", "a", "d", "c", "aa"} table.sort(t) show(t)`, "a aa b c d"},
		{"comparator", `local t = {5, 3, 8, 1, 9, 2} table.sort(t, function(a, b) return a > b end) show(t)`, "9 8 5 3 2 1"},
		{"equal keys", `local t = {} for i = 1, 20 do t[i] = {k = i % 3, i = i} end
table.sort(t, function(a, b) return a.k < b.k end)
local o = {} for i = 1, 20 do o[i] = t[i].k .. ":" .. t[i].i end print(table.concat(o, " "))`,
			"0:15 0:9 0:6 0:12 0:18 0:3 1:13 1:1 1:16 1:19 1:10 1:4 1:7 2:17 2:2 2:11 2:8 2:14 2:5 2:20"},
		{"no order", `print(pcall(table.sort, {3, 1, "x"}))`, "false\tsort.lua:2: attempt to compare string with number"},
		{"invalid order", `print(pcall(table.sort, {1,2,3,4,5,6,7,8,9,10,11,12,13,14,15}, function(a, b) return true end))`,
			"false\tsort.lua:2: invalid order function for sorting"},
		{"comparator error", `print(pcall(table.sort, {3, 2, 1}, function(a, b) error("boom") end))`, "false\tsort.lua:2: boom"},
		{"nil comparator", `local t = {3, 2, 1} table.sort(t, nil) show(t)`, "1 2 3"},
		{"empty", `local t = {} table.sort(t) show(t)`, ""},
		{"one", `local t = {1} table.sort(t) show(t)`, "1"},
		{"two", `local t = {2, 1} table.sort(t) show(t)`, "1 2"},
		{"hole", `print(pcall(table.sort, {1, nil, 3}))`, "false\tsort.lua:2: attempt to compare nil with number"},
		{"not a function", `print(pcall(table.sort, {2, 1}, 3))`, "false\tsort.lua:2: bad argument #2 to (anonymous) (function expected, got number)"},
		{"__lt", `local mt = {__lt = function(a, b) return a.v < b.v end}
local t = {} for i = 1, 9 do t[i] = setmetatable({v = (i * 5) % 9}, mt) end
table.sort(t) local o = {} for i = 1, 9 do o[i] = t[i].v end print(table.concat(o, " "))`, "0 1 2 3 4 5 6 7 8"},
		{"large", `local t = {} for i = 1, 5000 do t[i] = (i * 7919) % 5003 end table.sort(t)
for i = 2, 5000 do assert(t[i-1] <= t[i]) end print("sorted")`, "sorted"},
		{"read-only", `local ok, err = pcall(table.sort, math) print(ok, (tostring(err):find("read%-only") or tostring(err):find("protected")) ~= nil)`, "false\ttrue"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			vm := NewVM(Options{Stdout: &out, Budget: testBudget})
			defer vm.Close()
			_, err := vm.RunString("sort.lua", `local function show(t) local o = {} for i = 1, #t do o[i] = tostring(t[i]) end print(table.concat(o, " ")) end
`+tc.src)
			require.NoError(t, err)
			require.Equal(t, tc.want+"\n", out.String())
		})
	}
}
