package inspect

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind"
	"github.com/luaai/luaai/luabind/defs"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// lintDef loads a behaviour from source and requires it to be valid.
func lintDef(t *testing.T, src string) *defs.State {
	t.Helper()
	vm := defs.NewVM(luabind.Options{})
	t.Cleanup(vm.Close)
	v, err := vm.RunString("lint.lua", src)
	require.NoError(t, err)
	m, ok := defs.MachineValue(v)
	require.True(t, ok, "the script must return a machine")
	require.Empty(t, defs.CheckRoot(m, "lint.lua"))
	return m
}

func lintMessages(l scripterr.ErrorList) []string {
	out := make([]string, len(l))
	for i, e := range l {
		out[i] = e.Error()
	}
	return out
}

func TestLint(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "clean",
			src: `local ai = require("luaai")
return ai.fsm { initial = "a", context = { hp = 1, target = {} },
  states = {
    a = { lock = ai.gt("hp", 5), transitions = { { to = "b", when = ai.lt("target.distance", 2) } } },
    b = { transitions = { { push = "c", on = "go" }, { to = "a", after = 1 } } },
    c = { transitions = { { pop = true } } },
  } }`,
		},
		{
			name: "unreachable, directly and through an unreachable state",
			src: `local ai = require("luaai")
return ai.fsm { initial = "a",
  states = {
    a = { transitions = { { to = "a" } } },
    b = { transitions = { { to = "c" } } },
    c = {},
    d = { transitions = { { to = "b" } } },
  } }`,
			want: []string{
				`lint.lua:2: state "b": no transition reaches it from the initial state, only from d, which nothing reaches (only ai.push/ai.replace could)`,
				`lint.lua:2: state "c": no transition reaches it from the initial state, only from b, which nothing reaches (only ai.push/ai.replace could)`,
				`lint.lua:2: state "d": no transition reaches it (only ai.push/ai.replace could)`,
			},
		},
		{
			name: "utility children are all reachable; nested fsm checked with its path",
			src: `local ai = require("luaai")
return ai.utility {
  states = {
    x = ai.fsm { score = 1, initial = "p", states = { p = {}, q = {} } },
    y = { score = 0 },
  } }`,
			want: []string{`lint.lua:4: state "x.q": no transition reaches it (only ai.push/ai.replace could)`},
		},
		{
			name: "shadowed by a transition that always fires",
			src: `local ai = require("luaai")
return ai.fsm { initial = "a",
  states = {
    a = { transitions = { { to = "b", on = "e" }, { to = "b", when = true }, { push = "c", after = 1 }, { pop = true } } },
    b = { transitions = { { to = "a", after = 0 }, { to = "c" } } },
    c = {},
  } }`,
			want: []string{
				`lint.lua:2: state "a": transition 3 (push c) can never fire: transition 2 (to b) always fires first`,
				`lint.lua:2: state "a": transition 4 (pop) can never fire: transition 2 (to b) always fires first`,
				`lint.lua:2: state "b": transition 2 (to c) can never fire: transition 1 (to a) always fires first`,
			},
		},
		{
			name: "when = false",
			src: `local ai = require("luaai")
return ai.fsm { initial = "a", states = { a = { transitions = { { to = "a", when = false } } } } }`,
			want: []string{`lint.lua:2: state "a": transition 1 (to a) never fires: its when is false`},
		},
		{
			name: "native fields missing from every context",
			src: `local ai = require("luaai")
local inner = ai.fsm { initial = "p", score = 1, context = { mana = 1 },
  states = { p = { lock = ai.is("mana"), transitions = { { to = "p", when = ai.any(ai.is("mana"), ai.eq("spell.name", "x")) } } } } }
return ai.utility { context = { hp = 1 },
  states = {
    inner = inner,
    other = { score = ai.sum(ai.field("hp"), ai.normalize(ai.field("gold"), 0, 10)), lock = ai.non(ai.is("stunned")) },
    lua = { score = function(ctx) return ctx.whatever end },
  } }`,
			want: []string{
				`lint.lua:2: state "inner.p": transition 1 (to p): when reads ctx.spell.name, but "spell" is in no context defaults (a typo, or set by the game?)`,
				`lint.lua:4: state "other": lock reads ctx.stunned, but "stunned" is in no context defaults (a typo, or set by the game?)`,
				`lint.lua:4: state "other": score reads ctx.gold, but "gold" is in no context defaults (a typo, or set by the game?)`,
				`lint.lua:8: ctx.whatever is read, but no context default declares it and nothing in the script writes it; if the game sets it, give it a default`,
			},
		},
		{
			name: "Lua callbacks reading ctx fields nothing defines",
			src: `local ai = require("luaai")
local function note(ctx) ctx.seen = true end
return ai.fsm { initial = "a", context = { alertness = 0 },
  states = { a = {
    enter = note,
    update = function(ctx, dt)
      if ctx.seen then ctx.alertness = ctx.alertnes + dt end
      ctx.timer = (ctx.timer or 0) + dt
    end } } }`,
			want: []string{
				`lint.lua:7: ctx.alertnes is read, but no context default declares it and nothing in the script writes it (did you mean ctx.alertness?); if the game sets it, give it a default`,
			},
		},
		{
			name: "definition warnings are included",
			src: `local ai = require("luaai")
return ai.fsm { initial = "a", colour = "red", states = { a = { note = "x" } } }`,
			want: []string{
				`lint.lua:2: ai.fsm: unknown field "colour"`,
				`lint.lua:2: state "a": unknown field "note"`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := lintMessages(Lint(lintDef(t, tt.src)))
			if len(tt.want) == 0 {
				require.Empty(t, got)
				return
			}
			require.Equal(t, tt.want, got)
		})
	}
}

// A utility child with transitions stays a load error, not a warning.
func TestLintUtilityChildTransitionsIsAnError(t *testing.T) {
	vm := defs.NewVM(luabind.Options{})
	defer vm.Close()
	v, err := vm.RunString("u.lua", `local ai = require("luaai")
return ai.utility { states = { a = { score = 1, transitions = { { to = "b" } } }, b = { score = 0 } } }`)
	require.NoError(t, err)
	m, _ := defs.MachineValue(v)
	errs := defs.CheckRoot(m, "u.lua")
	require.Len(t, errs, 1)
	require.Contains(t, errs[0].Error(), "children of a utility machine take no transitions")
}

// A definition placed twice is reported once.
func TestLintSharedDefinition(t *testing.T) {
	m := lintDef(t, `local ai = require("luaai")
local sub = ai.fsm { initial = "p", states = { p = {}, q = {} } }
return ai.fsm { initial = "a", states = { a = sub, b = sub } }`)
	got := lintMessages(Lint(m))
	require.Equal(t, []string{
		`lint.lua:2: state "b": no transition reaches it (only ai.push/ai.replace could)`,
		`lint.lua:2: state "a.q": no transition reaches it (only ai.push/ai.replace could)`,
	}, got, "a machine child is reported where it was written, a.q once")
}

func TestNativeFields(t *testing.T) {
	vm := defs.NewVM(luabind.Options{})
	defer vm.Close()
	v, err := vm.RunString("n.lua", `local ai = require("luaai")
return {
  ai.is("a"), ai.eq("b", 1), ai.ne("c.d", "x"), ai.lt("e", 1), ai.le("e", 1), ai.gt("f", 1), ai.ge("g", 1),
  ai.all(ai.is("h"), ai.any(ai.is("i"), ai.non(ai.is("j"))), function() end, true),
  ai.const(1), ai.field("k"), ai.cond(ai.is("l")), ai.inverse(ai.field("m")),
  ai.product(ai.field("n"), 2, function() end), ai.sum(ai.field("o")), ai.min(ai.field("p")), ai.max(ai.field("q")),
  ai.compensated(ai.field("r"), ai.field("r")), ai.weight(ai.field("s"), 2), ai.normalize(ai.field("t"), 0, 1),
  ai.curve(ai.field("u"), { kind = "linear" }),
}`)
	require.NoError(t, err)
	tbl := v.(*lua.LTable)
	require.Equal(t, 20, tbl.Len())
	var all []string
	for i := 1; i <= tbl.Len(); i++ {
		ud := tbl.RawGetInt(i).(*lua.LUserData)
		all = append(all, strings.Join(defs.NativeFields(ud.Value), ","))
	}
	require.Equal(t, []string{
		"a", "b", "c.d", "e", "e", "f", "g", "h,i,j",
		"", "k", "l", "m", "n", "o", "p", "q", "r", "s", "t", "u",
	}, all)
	require.Empty(t, defs.NativeFields(nil))
	require.Empty(t, defs.NativeFields(defs.LuaCond{}))
	require.Empty(t, defs.NativeFields(defs.ConstScorer(1)))
}

func TestAlwaysFiresAndDescribe(t *testing.T) {
	require.True(t, alwaysFires(defs.Transition{}))
	require.True(t, alwaysFires(defs.Transition{When: defs.ConstCond(true)}))
	require.False(t, alwaysFires(defs.Transition{When: defs.ConstCond(false)}))
	require.False(t, alwaysFires(defs.Transition{On: "e"}))
	require.False(t, alwaysFires(defs.Transition{After: 1}))
	require.False(t, alwaysFires(defs.Transition{When: nativeOf(t, `ai.is("x")`).(defs.Cond)}))

	require.Equal(t, "is(x)", defs.Describe(nativeOf(t, `ai.is("x")`)))
	require.Equal(t, "true", defs.Describe(defs.ConstCond(true)))
	require.Equal(t, "0.5", defs.Describe(defs.ConstScorer(0.5)))
	require.Equal(t, "", defs.Describe(nil))
	var b bytes.Buffer
	require.NoError(t, WriteGraph(&b, lintDef(t, `local ai = require("luaai")
return ai.fsm { initial = "a", states = { a = {} } }`), "x", GraphMermaid))
	require.Contains(t, b.String(), "[*] --> a")
}

// Where the script can be read, warnings point at the state's key and the
// transition's entry, through comments, long strings and nested tables.
func TestLintPositionsFromSource(t *testing.T) {
	src := `local ai = require("luaai")
local shared = { transitions = { { to = "a" } } }
--[[ a long comment with states = { x = {} } inside ]]
return ai.fsm({ initial = "a", context = { s = [==[ "{" ]==] },
  states = {
    a = { transitions = {
      { to = "b" }, -- "}" in a comment
      { to = "c", when = ai.is("nope") },
    } },
    ["b"] = shared,
    c = ai.fsm { initial = "p", states = { p = {}, q = {} } },
    d = {
      enter = function(ctx) local t = { "{", '}' } end,
      transitions = { { to = "a", when = false } },
    },
  },
})`
	path := filepath.Join(t.TempDir(), "pos.lua")
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	vm := defs.NewVM(luabind.Options{})
	defer vm.Close()
	def, err := vm.LoadBehaviour(path)
	require.NoError(t, err)
	got := lintMessages(Lint(def))
	for i := range got {
		got[i] = strings.TrimPrefix(got[i], path)
	}
	require.Equal(t, []string{
		`:8: state "a": transition 2 (to c): when reads ctx.nope, but "nope" is in no context defaults (a typo, or set by the game?)`,
		`:8: state "a": transition 2 (to c) can never fire: transition 1 (to b) always fires first`,
		`:11: state "c.q": no transition reaches it (only ai.push/ai.replace could)`,
		`:12: state "d": no transition reaches it (only ai.push/ai.replace could)`,
		`:14: state "d": transition 1 (to a) never fires: its when is false`,
	}, got)

	// A file that does not match the definition leaves the recorded lines.
	require.NoError(t, os.WriteFile(path, []byte("-- changed since\n"+src), 0o644))
	got = lintMessages(Lint(def))
	require.Len(t, got, 5)
	for _, m := range got {
		require.True(t, strings.HasPrefix(m, path+":4:") || strings.HasPrefix(m, path+":11:"), m)
	}
}

// nativeOf evaluates a luaai expression (ai.is("x"), ai.gt("hp", 1), ...)
// and returns the native condition or scorer it makes.
func nativeOf(t *testing.T, expr string) any {
	t.Helper()
	vm := defs.NewVM(luabind.Options{})
	defer vm.Close()
	v, err := vm.RunString("native.lua", `local ai = require("luaai") return `+expr)
	require.NoError(t, err)
	ud, ok := v.(*lua.LUserData)
	require.True(t, ok, "%s is %s, not a native", expr, v.Type())
	return ud.Value
}
