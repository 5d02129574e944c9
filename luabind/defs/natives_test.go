package defs

import (
	"math"
	"strings"
	"testing"

	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
	luar "layeh.com/gopher-luar"
)

const nativeChunk = "natives_test.lua"

// newNativeVM is a VM with the native constructors as the global table ai.
func newNativeVM(t testing.TB) *VM {
	t.Helper()
	return newNativeVMWith(t, luabind.Options{})
}

// newNativeVMWith is newNativeVM with the VM's options.
func newNativeVMWith(t testing.TB, opts luabind.Options) *VM {
	t.Helper()
	vm := NewVM(opts)
	t.Cleanup(vm.Close)
	registerNativeTypes(vm.L)
	ai := vm.L.NewTable()
	vm.L.SetFuncs(ai, nativeExports())
	vm.L.SetGlobal("ai", ai)
	return vm
}

// runLua runs src (a chunk named natives_test.lua) and returns its results.
func runLua(t testing.TB, vm *VM, src string) ([]lua.LValue, error) {
	t.Helper()
	proto, err := luabind.Compile(strings.NewReader(src), nativeChunk)
	require.NoError(t, err)
	L := vm.L
	top := L.GetTop()
	L.Push(L.NewFunctionFromProto(proto))
	if err := L.PCall(0, lua.MultRet, nil); err != nil {
		L.SetTop(top)
		return nil, err
	}
	out := make([]lua.LValue, L.GetTop()-top)
	for i := range out {
		out[i] = L.Get(top + 1 + i)
	}
	L.SetTop(top)
	return out, nil
}

// build evaluates `return expr, ctx, payload`.
func build(t testing.TB, vm *VM, expr, ctx, payload string) (lua.LValue, *lua.LTable, lua.LValue) {
	t.Helper()
	if ctx == "" {
		ctx = "{}"
	}
	if payload == "" {
		payload = "nil"
	}
	vals, err := runLua(t, vm, "return "+expr+", "+ctx+", "+payload)
	require.NoError(t, err)
	require.Len(t, vals, 3)
	tbl, ok := vals[1].(*lua.LTable)
	require.True(t, ok, "ctx must be a table")
	return vals[0], tbl, vals[2]
}

func buildCond(t testing.TB, vm *VM, expr, ctx, payload string) (Cond, *lua.LTable, lua.LValue) {
	t.Helper()
	v, c, p := build(t, vm, expr, ctx, payload)
	cond, ok := toCond(v)
	require.True(t, ok, "%s is not a condition", expr)
	return cond, c, p
}

func buildScorer(t testing.TB, vm *VM, expr, ctx string) (Scorer, *lua.LTable) {
	t.Helper()
	v, c, _ := build(t, vm, expr, ctx, "")
	s, ok := toScorer(v)
	require.True(t, ok, "%s is not a scorer", expr)
	return s, c
}

const condCtx = `{hunger = 0.7, name = "bob", alive = true, dead = false, zero = 0, s = "5",
	nan = 0/0, target = {distance = 3, tag = "enemy", inner = {x = 1}}}`

func TestNativeConds(t *testing.T) {
	tests := []struct {
		expr    string
		payload string
		want    bool
	}{
		// is: Lua truthiness, dotted paths, missing fields.
		{`ai.is("hunger")`, "", true},
		{`ai.is("zero")`, "", true},
		{`ai.is("dead")`, "", false},
		{`ai.is("missing")`, "", false},
		{`ai.is("target.inner.x")`, "", true},
		{`ai.is("target.missing")`, "", false},
		{`ai.is("missing.x.y")`, "", false},
		{`ai.is("hunger.x")`, "", false},
		{`ai.is("name.len")`, "", false},

		// eq / ne: raw equality on any value.
		{`ai.eq("name", "bob")`, "", true},
		{`ai.eq("name", "bo")`, "", false},
		{`ai.ne("name", "bob")`, "", false},
		{`ai.ne("name", "alice")`, "", true},
		{`ai.eq("alive", true)`, "", true},
		{`ai.eq("alive", false)`, "", false},
		{`ai.eq("dead", false)`, "", true},
		{`ai.ne("dead", false)`, "", false},
		{`ai.eq("missing", false)`, "", false},
		{`ai.eq("missing", nil)`, "", true},
		{`ai.ne("missing", nil)`, "", false},
		{`ai.eq("zero", 0)`, "", true},
		{`ai.eq("hunger", 0.7)`, "", true},
		{`ai.eq("s", 5)`, "", false},
		{`ai.eq("s", "5")`, "", true},
		{`ai.eq("target.tag", "enemy")`, "", true},
		{`ai.eq("nan", 0/0)`, "", false},

		// lt / le / gt / ge: numbers only.
		{`ai.gt("hunger", 0.5)`, "", true},
		{`ai.gt("hunger", 0.7)`, "", false},
		{`ai.ge("hunger", 0.7)`, "", true},
		{`ai.lt("hunger", 0.7)`, "", false},
		{`ai.le("hunger", 0.7)`, "", true},
		{`ai.lt("hunger", 1)`, "", true},
		{`ai.lt("target.distance", 5)`, "", true},
		{`ai.ge("target.distance", 5)`, "", false},
		{`ai.lt("s", 10)`, "", false},
		{`ai.le("s", 10)`, "", false},
		{`ai.gt("s", 0)`, "", false},
		{`ai.ge("s", 0)`, "", false},
		{`ai.lt("missing", 10)`, "", false},
		{`ai.ge("missing", -10)`, "", false},
		{`ai.lt("alive", 10)`, "", false},
		{`ai.gt("target", 0)`, "", false},
		{`ai.lt("nan", 10)`, "", false},
		{`ai.ge("nan", -10)`, "", false},

		// all / any / non, with constants and Lua functions.
		{`ai.all(true, ai.is("hunger"))`, "", true},
		{`ai.all(ai.is("hunger"), ai.is("dead"))`, "", false},
		{`ai.all(true)`, "", true},
		{`ai.any(false, ai.is("dead"))`, "", false},
		{`ai.any(ai.is("dead"), ai.is("alive"))`, "", true},
		{`ai.non(ai.is("dead"))`, "", true},
		{`ai.non(true)`, "", false},
		{`ai.non(ai.non(ai.gt("hunger", 0.5)))`, "", true},
		{`ai.all(false, function() error("never called") end)`, "", false},
		{`ai.any(true, function() error("never called") end)`, "", true},
		{`ai.any(function(ctx) return ctx.hunger > 0.6 end)`, "", true},
		{`ai.all(function(ctx, p) return p == "go" end, ai.gt("hunger", 0.5))`, `"go"`, true},
		{`ai.all(function(ctx, p) return p == "go" end, ai.gt("hunger", 0.5))`, `"stop"`, false},
		{`ai.any(false, ai.non(function(ctx, p) return p.stop end))`, `{stop = false}`, true},
		{`ai.non(ai.all(true, function(ctx, p) return p == 42 end))`, `42`, false},
	}
	vm := newNativeVM(t)
	for _, tt := range tests {
		name := tt.expr
		if tt.payload != "" {
			name += " payload=" + tt.payload
		}
		t.Run(name, func(t *testing.T) {
			c, ctx, payload := buildCond(t, vm, tt.expr, condCtx, tt.payload)
			got, err := c.Test(vm, ctx, payload)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
			require.Equal(t, 0, vm.L.GetTop(), "stack balanced")
		})
	}
}

const scoreCtx = `{hunger = 0.7, dist = 0.2, flag = true, off = false, name = "bob", big = 20,
	nan = 0/0, target = {distance = 4}}`

func TestNativeScorers(t *testing.T) {
	tests := []struct {
		expr string
		want float64
	}{
		{`ai.const(0.3)`, 0.3},
		{`ai.const(-2)`, -2},

		// field: number as is, true 1, false/nil/string/table 0.
		{`ai.field("hunger")`, 0.7},
		{`ai.field("flag")`, 1},
		{`ai.field("off")`, 0},
		{`ai.field("missing")`, 0},
		{`ai.field("name")`, 0},
		{`ai.field("target")`, 0},
		{`ai.field("target.distance")`, 4},
		{`ai.field("target.distance.x")`, 0},
		{`ai.field("missing.distance")`, 0},

		// cond: 1 or 0; a Lua function inside gets (ctx, nil).
		{`ai.cond(ai.is("flag"))`, 1},
		{`ai.cond(ai.is("off"))`, 0},
		{`ai.cond(true)`, 1},
		{`ai.cond(false)`, 0},
		{`ai.cond(function(ctx, p) return p == nil and ctx.hunger == 0.7 end)`, 1},
		{`ai.product(ai.is("flag"), 0.5)`, 0.5},
		{`ai.product(ai.is("off"), 0.5)`, 0},

		{`ai.inverse(ai.field("dist"))`, 0.8},
		{`ai.inverse(0.25)`, 0.75},
		{`ai.inverse(function(ctx) return ctx.hunger end)`, 1 - 0.7},

		{`ai.product(ai.field("hunger"), ai.inverse(ai.field("dist")))`, 0.7 * 0.8},
		{`ai.product(2, 3, 4)`, 24},
		{`ai.product(0.5)`, 0.5},
		{`ai.product(function(ctx) return ctx.hunger end, 2)`, 1.4},
		{`ai.sum(0.2, 0.3, 0.4)`, 0.2 + 0.3 + 0.4},
		{`ai.sum(ai.field("hunger"))`, 0.7},
		{`ai.min(0.5, 0.2, 0.9)`, 0.2},
		{`ai.min(0.5)`, 0.5},
		{`ai.max(0.5, 0.2, 0.9)`, 0.9},
		{`ai.max(-3, -1, function() return -2 end)`, -1},

		{`ai.weight(ai.field("hunger"), 2)`, 1.4},
		{`ai.weight(0.5, -1)`, -0.5},

		// normalize: clamped; lo == hi is a step at hi.
		{`ai.normalize(ai.field("big"), 0, 40)`, 0.5},
		{`ai.normalize(ai.field("big"), 0, 10)`, 1},
		{`ai.normalize(ai.field("big"), 30, 40)`, 0},
		{`ai.normalize(ai.field("big"), 20, 20)`, 1},
		{`ai.normalize(19, 20, 20)`, 0},
		{`ai.normalize(21, 20, 20)`, 1},
		{`ai.normalize(5, 10, 0)`, 0.5},
		{`ai.normalize(ai.field("nan"), 0, 1)`, 0},

		// compensated: s' = s + (1-s)(1-1/n)s, then the product.
		{`ai.compensated(0.5)`, 0.5},
		{`ai.compensated(0.3)`, 0.3},
		{`ai.compensated(0.5, 0.5)`, 0.625 * 0.625},
		{`ai.compensated(0.5, 1)`, 0.625},
		{`ai.compensated(0.5, 0)`, 0},
		{`ai.compensated(0.5, 0.5, 0.5)`, (0.5 + 0.5*(2.0/3)*0.5) * (0.5 + 0.5*(2.0/3)*0.5) * (0.5 + 0.5*(2.0/3)*0.5)},
		{`ai.compensated(0.2, 0.4, 0.9)`, (0.2 + 0.8*(2.0/3)*0.2) * (0.4 + 0.6*(2.0/3)*0.4) * (0.9 + 0.1*(2.0/3)*0.9)},
		{`ai.compensated(ai.field("hunger"), function() return 0.5 end)`, (0.7 + 0.3*0.5*0.7) * 0.625},
	}
	vm := newNativeVM(t)
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			s, ctx := buildScorer(t, vm, tt.expr, scoreCtx)
			got, err := s.Score(vm, ctx)
			require.NoError(t, err)
			require.InDelta(t, tt.want, got, 1e-9)
			require.Equal(t, 0, vm.L.GetTop(), "stack balanced")
		})
	}
}

func TestNativeCurves(t *testing.T) {
	tests := []struct {
		x     string // the scored input, Lua
		curve string // the curve table, Lua
		want  float64
	}{
		{"0.3", `{kind = "linear"}`, 0.3},
		{"0.5", `{kind = "linear", m = 2, b = -0.5}`, 0.5},
		{"0.9", `{kind = "linear", m = 2, b = -0.5}`, 1}, // 1.3 clamped
		{"0.1", `{kind = "linear", m = 2, b = -0.5}`, 0}, // -0.3 clamped
		{"0.5", `{kind = "linear", c = 0.2}`, 0.3},       // 0.5 - 0.2
		{"1.5", `{kind = "linear"}`, 1},                  // input clamped
		{"-3", `{kind = "linear", b = 0.2}`, 0.2},        // input clamped to 0
		{"0.4", `{kind = "linear", m = -1, b = 1}`, 0.6}, // falling line
		{"0.5", `{kind = "polynomial", k = 2}`, 0.25},    // quadratic
		{"0.5", `{kind = "polynomial", k = 3, m = 2}`, 0.25},
		{"0.25", `{kind = "polynomial", k = 0.5}`, 0.5},
		{"0.5", `{kind = "polynomial", k = 2, c = 0.6}`, 0.01},
		{"0.5", `{kind = "polynomial", k = 0.5, c = 0.6}`, 0}, // (-0.1)^0.5 is NaN
		{"0.5", `{kind = "logistic"}`, 0.5},
		{"0.7", `{kind = "logistic"}`, 1 / (1 + math.Exp(-2))},
		{"0.2", `{kind = "logistic", k = 2}`, 1 / (1 + math.Exp(6))},
		{"0.6", `{kind = "logistic", c = 0.1}`, 0.5},
		{"0.5", `{kind = "logistic", m = 0.5, b = 0.25}`, 0.5},
		{"0.5", `{kind = "logit"}`, 0.5},
		{"0.75", `{kind = "logit"}`, math.Log(3)/5 + 0.5},
		{"0.25", `{kind = "logit"}`, math.Log(1.0/3)/5 + 0.5},
		{"0", `{kind = "logit"}`, 0},            // -Inf clamped
		{"1", `{kind = "logit"}`, 1},            // +Inf clamped
		{"0", `{kind = "logit", m = 0}`, 0},     // 0·-Inf is NaN
		{"0.5", `{kind = "logit", c = 0.6}`, 0}, // log of a negative is NaN
		{"0.5", `{kind = "normal"}`, 1},
		{"0.7", `{kind = "normal"}`, math.Exp(-1.2)},
		{"0.6", `{kind = "normal", k = 2}`, math.Exp(-0.6)},
		{"0.5", `{kind = "normal", b = -0.5}`, 0.5},
		{"0.7", `{kind = "normal", c = 0.2}`, 1},
		{"0.25", `{kind = "sine"}`, 1},
		{"0.75", `{kind = "sine"}`, 0},
		{"0", `{kind = "sine"}`, 0.5},
		{"1/12", `{kind = "sine"}`, 0.75},
		{"0.25", `{kind = "sine", m = 0.5}`, 0.75},
		{"0.4", `{kind = "step"}`, 0},
		{"0.5", `{kind = "step"}`, 1},
		{"0.3", `{kind = "step", m = 0.5, b = 0.2}`, 0.2},
		{"0.8", `{kind = "step", m = 0.5, b = 0.2}`, 0.7},
		{"0.6", `{kind = "step", c = 0.2}`, 0},
		{"0.6", `{kind = "linear", m = 0/0}`, 0},    // NaN output
		{`ai.field("nan")`, `{kind = "linear"}`, 0}, // NaN input reads as 0
		{`ai.field("nan")`, `{kind = "linear", b = 0.3}`, 0.3},
		{`ai.field("hunger")`, `{kind = "polynomial", k = 2}`, 0.49},
		{`function(ctx) return ctx.dist end`, `{kind = "step"}`, 0},
	}
	vm := newNativeVM(t)
	for _, tt := range tests {
		expr := "ai.curve(" + tt.x + ", " + tt.curve + ")"
		t.Run(expr, func(t *testing.T) {
			s, ctx := buildScorer(t, vm, expr, scoreCtx)
			got, err := s.Score(vm, ctx)
			require.NoError(t, err)
			require.InDelta(t, tt.want, got, 1e-9)
		})
	}
}

func TestNativeErrorsPropagate(t *testing.T) {
	const boom = `function() error("boom") end`
	conds := []string{
		`ai.all(true, ` + boom + `)`,
		`ai.any(false, ` + boom + `)`,
		`ai.non(` + boom + `)`,
		`ai.any(false, ai.non(ai.all(true, ` + boom + `)))`,
	}
	scorers := []string{
		`ai.cond(` + boom + `)`,
		`ai.inverse(` + boom + `)`,
		`ai.product(0, ` + boom + `)`,
		`ai.sum(0.5, ` + boom + `)`,
		`ai.min(` + boom + `, 0.5)`,
		`ai.max(0.5, ` + boom + `)`,
		`ai.compensated(0.5, ` + boom + `)`,
		`ai.weight(` + boom + `, 2)`,
		`ai.normalize(` + boom + `, 0, 1)`,
		`ai.curve(` + boom + `, {kind = "linear"})`,
		`ai.product(0.5, ai.inverse(ai.curve(` + boom + `, {kind = "sine"})))`,
	}
	vm := newNativeVM(t)
	for _, expr := range conds {
		t.Run(expr, func(t *testing.T) {
			c, ctx, p := buildCond(t, vm, expr, "", "")
			got, err := c.Test(vm, ctx, p)
			require.Error(t, err)
			require.Contains(t, scripterr.ErrorMessage(err), "natives_test.lua:1: boom")
			require.False(t, got)
			require.Equal(t, 0, vm.L.GetTop())
		})
	}
	for _, expr := range scorers {
		t.Run(expr, func(t *testing.T) {
			s, ctx := buildScorer(t, vm, expr, "")
			got, err := s.Score(vm, ctx)
			require.Error(t, err)
			require.Contains(t, scripterr.ErrorMessage(err), "boom")
			require.Zero(t, got)
			require.Equal(t, 0, vm.L.GetTop())
		})
	}
	t.Run("non-number from a nested function", func(t *testing.T) {
		for _, expr := range []string{
			`ai.inverse(function() return "x" end)`,
			`ai.sum(0.5, function() return 0/0 end)`,
			`ai.product(function() end)`,
		} {
			s, ctx := buildScorer(t, vm, expr, "")
			_, err := s.Score(vm, ctx)
			require.ErrorIs(t, err, scripterr.ErrNotANumber, expr)
		}
	})
}

// unit is a Go value bound into a context with gopher-luar.
type unit struct {
	HP  float64
	Tag string
	Pos *vec
}

type vec struct{ X, Y float64 }

func TestNativeUserdataFields(t *testing.T) {
	vm := newNativeVM(t)
	L := vm.L
	ctx := L.NewTable()
	ctx.RawSetString("unit", luar.New(L, &unit{HP: 30, Tag: "orc", Pos: &vec{X: 2}}))
	bad := L.NewUserData()
	mt := L.NewTable()
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("no fields here")
		return 0
	}))
	L.SetMetatable(bad, mt)
	ctx.RawSetString("bad", bad)

	scores := []struct {
		expr string
		want float64
	}{
		{`ai.field("unit.HP")`, 30},
		{`ai.field("unit.Pos.X")`, 2},
		{`ai.field("unit.Nope")`, 0},
		{`ai.field("unit.Tag")`, 0},
		{`ai.cond(ai.gt("unit.Pos.X", 1))`, 1},
		{`ai.cond(ai.eq("unit.Tag", "orc"))`, 1},
		{`ai.cond(ai.is("unit.Nope"))`, 0},
	}
	for _, tt := range scores {
		t.Run(tt.expr, func(t *testing.T) {
			v, _, _ := build(t, vm, tt.expr, "", "")
			s, ok := toScorer(v)
			require.True(t, ok)
			got, err := s.Score(vm, ctx)
			require.NoError(t, err)
			require.InDelta(t, tt.want, got, 1e-9)
			require.Equal(t, 0, L.GetTop())
		})
	}
	t.Run("raising __index is an error, not a panic", func(t *testing.T) {
		v, _, _ := build(t, vm, `ai.is("bad.x")`, "", "")
		c, _ := toCond(v)
		ok, err := c.Test(vm, ctx, lua.LNil)
		require.ErrorContains(t, err, "no fields here")
		require.False(t, ok)
		require.Equal(t, 0, L.GetTop())
	})
}

func TestNativeArgumentErrors(t *testing.T) {
	tests := []struct {
		src  string
		want string
	}{
		{`ai.gt("hunger", "x")`, "bad argument #2 to gt (number expected, got string)"},
		{`ai.lt("hunger")`, "bad argument #2 to lt (number expected"},
		{`ai.le({}, 1)`, "bad argument #1 to le (string expected, got table)"},
		{`ai.ge("x", 1, 2)`, "bad argument #3 to ge (no more arguments expected, got number)"},
		{`ai.is()`, "bad argument #1 to is (string expected"},
		{`ai.is("")`, "bad argument #1 to is (field name expected, got empty string)"},
		{`ai.is("a..b")`, `bad argument #1 to is (empty segment in field path "a..b")`},
		{`ai.field(".x")`, `bad argument #1 to field (empty segment in field path ".x")`},
		{`ai.field("x.")`, `bad argument #1 to field (empty segment`},
		{`ai.eq("x")`, "bad argument #2 to eq (value expected)"},
		{`ai.ne(true, 1)`, "bad argument #1 to ne (string expected, got boolean)"},
		{`ai.all()`, "bad argument #1 to all (condition expected, got no value)"},
		{`ai.any()`, "bad argument #1 to any (condition expected, got no value)"},
		{`ai.all(true, 3)`, "bad argument #2 to all (condition expected (boolean, function or ai condition), got number)"},
		{`ai.any(ai.field("x"))`, "bad argument #1 to any (condition expected (boolean, function or ai condition), got ai scorer)"},
		{`ai.non()`, "bad argument #1 to non (condition expected, got no value)"},
		{`ai.non(nil)`, "bad argument #1 to non (condition expected (boolean, function or ai condition), got nil)"},
		{`ai.non(true, false)`, "bad argument #2 to non (no more arguments expected, got boolean)"},
		{`ai.const("a")`, "bad argument #1 to const (number expected, got string)"},
		{`ai.cond(0.5)`, "bad argument #1 to cond (condition expected (boolean, function or ai condition), got number)"},
		{`ai.inverse(true)`, "bad argument #1 to inverse (scorer expected (number, function or ai scorer), got boolean)"},
		{`ai.product()`, "bad argument #1 to product (scorer expected, got no value)"},
		{`ai.sum()`, "bad argument #1 to sum (scorer expected, got no value)"},
		{`ai.min()`, "bad argument #1 to min (scorer expected, got no value)"},
		{`ai.max()`, "bad argument #1 to max (scorer expected, got no value)"},
		{`ai.compensated()`, "bad argument #1 to compensated (scorer expected, got no value)"},
		{`ai.product(0.5, "x")`, "bad argument #2 to product (scorer expected (number, function or ai scorer), got string)"},
		{`ai.sum(0.5, {})`, "bad argument #2 to sum (scorer expected (number, function or ai scorer), got table)"},
		{`ai.weight(0.5)`, "bad argument #2 to weight (number expected"},
		{`ai.weight(0.5, ai.const(2))`, "bad argument #2 to weight (number expected, got userdata)"},
		{`ai.normalize(0.5, 0)`, "bad argument #3 to normalize (number expected"},
		{`ai.normalize("x", 0, 1)`, "bad argument #1 to normalize (scorer expected"},
		{`ai.curve(0.5)`, "bad argument #2 to curve (table expected"},
		{`ai.curve(0.5, {})`, "bad argument #2 to curve (curve kind expected (linear, polynomial, logistic, logit, normal, sine or step), got nil)"},
		{`ai.curve(0.5, {kind = "cubic"})`, `bad argument #2 to curve (unknown curve kind "cubic"`},
		{`ai.curve(0.5, {kind = "linear", m = "2"})`, "bad argument #2 to curve (curve m must be a number, got string)"},
		{`ai.curve(0.5, {kind = "linear", k = true})`, "bad argument #2 to curve (curve k must be a number, got boolean)"},
		{`ai.curve(0.5, {kind = "linear", b = {}})`, "bad argument #2 to curve (curve b must be a number, got table)"},
		{`ai.curve(0.5, {kind = "linear", c = "0"})`, "bad argument #2 to curve (curve c must be a number, got string)"},
		{`ai.curve(0.5, {kind = "linear", K = 2})`, "bad argument #2 to curve (unknown curve field K"},
		{`ai.curve("x", {kind = "linear"})`, "bad argument #1 to curve (scorer expected"},
	}
	vm := newNativeVM(t)
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			_, err := runLua(t, vm, "local x = "+tt.src+"\nreturn x")
			require.Error(t, err)
			msg := scripterr.ErrorMessage(err)
			require.Contains(t, msg, tt.want)
			require.True(t, strings.HasPrefix(msg, nativeChunk+":1: "), "message %q names the script line", msg)
		})
	}
	t.Run("a local alias is named by its local name", func(t *testing.T) {
		_, err := runLua(t, vm, `local gt = ai.gt; return gt("x", {})`)
		require.ErrorContains(t, err, "bad argument #2 to gt (number expected, got table)")
	})
}

func TestNativeDescribe(t *testing.T) {
	tests := []struct {
		expr     string
		describe string
		tostring string
	}{
		{`ai.gt("hunger", 0.5)`, `gt(hunger, 0.5)`, `ai.gt("hunger", 0.5)`},
		{`ai.le("target.distance", 10)`, `le(target.distance, 10)`, `ai.le("target.distance", 10)`},
		{`ai.is("alive")`, `is(alive)`, `ai.is("alive")`},
		{`ai.eq("mood", "angry")`, `eq(mood, "angry")`, `ai.eq("mood", "angry")`},
		{`ai.ne("dead", true)`, `ne(dead, true)`, `ai.ne("dead", true)`},
		{`ai.eq("x", nil)`, `eq(x, nil)`, `ai.eq("x", nil)`},
		{`ai.all(ai.is("a"), false, function() end)`, `all(is(a), false, fn@natives_test.lua:1)`, `ai.all(ai.is("a"), false, fn@natives_test.lua:1)`},
		{`ai.any(ai.non(ai.is("a")))`, `any(non(is(a)))`, `ai.any(ai.non(ai.is("a")))`},
		{`ai.product(ai.field("hunger"), ai.inverse(ai.field("distance_to_food")))`,
			`product(field(hunger), inverse(field(distance_to_food)))`,
			`ai.product(ai.field("hunger"), ai.inverse(ai.field("distance_to_food")))`},
		{`ai.sum(0.5, ai.const(0.25))`, `sum(0.5, const(0.25))`, `ai.sum(0.5, ai.const(0.25))`},
		{`ai.min(1, 2)`, `min(1, 2)`, `ai.min(1, 2)`},
		{`ai.max(1, 2)`, `max(1, 2)`, `ai.max(1, 2)`},
		{`ai.compensated(1, 2)`, `compensated(1, 2)`, `ai.compensated(1, 2)`},
		{`ai.product(ai.is("flag"), 0.5)`, `product(is(flag), 0.5)`, `ai.product(ai.is("flag"), 0.5)`},
		{`ai.cond(ai.is("flag"))`, `cond(is(flag))`, `ai.cond(ai.is("flag"))`},
		{`ai.weight(ai.field("x"), 2)`, `weight(field(x), 2)`, `ai.weight(ai.field("x"), 2)`},
		{`ai.normalize(ai.field("x"), 0, 20)`, `normalize(field(x), 0, 20)`, `ai.normalize(ai.field("x"), 0, 20)`},
		{`ai.curve(ai.field("x"), {kind = "logistic", k = 2})`, `curve(field(x), logistic, k=2)`, `ai.curve(ai.field("x"), {kind="logistic", k=2})`},
		{`ai.curve(0.5, {kind = "step", m = 1, b = 0.5, c = 0.1})`, `curve(0.5, step, b=0.5, c=0.1)`, `ai.curve(0.5, {kind="step", b=0.5, c=0.1})`},
	}
	vm := newNativeVM(t)
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			vals, err := runLua(t, vm, "local x = "+tt.expr+"\nreturn x, tostring(x)")
			require.NoError(t, err)
			ud, ok := vals[0].(*lua.LUserData)
			require.True(t, ok)
			require.Equal(t, tt.describe, Describe(ud.Value))
			require.Equal(t, tt.tostring, vals[1].String())
		})
	}
}

func TestNativeParts(t *testing.T) {
	type parter interface {
		Parts(vm *VM, ctx *lua.LTable) []Part
	}
	tests := []struct {
		expr string
		want []Part
	}{
		{`ai.product(ai.field("hunger"), 0.5, function(ctx) return 0.25 end, ai.is("flag"))`, []Part{
			{"field(hunger)", 0.7}, {"0.5", 0.5}, {"fn@natives_test.lua:1", 0.25}, {"is(flag)", 1},
		}},
		{`ai.sum(function() error("boom") end, 0.5)`, []Part{{"fn@natives_test.lua:1", 0}, {"0.5", 0.5}}},
		{`ai.inverse(ai.field("dist"))`, []Part{{"field(dist)", 0.2}}},
		{`ai.weight(ai.field("dist"), 3)`, []Part{{"field(dist)", 0.2}}},
		{`ai.normalize(ai.field("big"), 0, 40)`, []Part{{"field(big)", 20}}},
		{`ai.curve(ai.field("big"), {kind = "linear"})`, []Part{{"field(big)", 20}}},
		{`ai.cond(ai.is("flag"))`, []Part{{"is(flag)", 1}}},
		{`ai.compensated(ai.cond(false), 1)`, []Part{{"cond(false)", 0}, {"1", 1}}},
		{`ai.field("x")`, nil},
		{`ai.const(1)`, nil},
	}
	vm := newNativeVM(t)
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			v, ctx, _ := build(t, vm, tt.expr, scoreCtx, "")
			p, ok := v.(*lua.LUserData).Value.(parter)
			require.True(t, ok)
			got := p.Parts(vm, ctx)
			require.Len(t, got, len(tt.want))
			for i := range tt.want {
				require.Equal(t, tt.want[i].Name, got[i].Name)
				require.InDelta(t, tt.want[i].Value, got[i].Value, 1e-9)
			}
			require.Equal(t, 0, vm.L.GetTop())
		})
	}
}

func TestNativeConversions(t *testing.T) {
	vm := newNativeVM(t)
	vals, err := runLua(t, vm, `return ai.is("a"), ai.field("a"), function() end, "s", {}, 0.5, true`)
	require.NoError(t, err)
	cond, scorer, fn, str, tbl, num, boolean := vals[0], vals[1], vals[2], vals[3], vals[4], vals[5], vals[6]

	c, ok := toCond(boolean)
	require.True(t, ok)
	require.Equal(t, ConstCond(true), c)
	c, ok = toCond(fn)
	require.True(t, ok)
	require.IsType(t, LuaCond{}, c)
	c, ok = toCond(cond)
	require.True(t, ok)
	require.IsType(t, &isCond{}, c)
	for _, v := range []lua.LValue{scorer, str, tbl, num, lua.LNil} {
		_, ok := toCond(v)
		require.False(t, ok, v.Type().String())
	}

	s, ok := toScorer(num)
	require.True(t, ok)
	require.Equal(t, ConstScorer(0.5), s)
	s, ok = toScorer(fn)
	require.True(t, ok)
	require.IsType(t, LuaScorer{}, s)
	s, ok = toScorer(scorer)
	require.True(t, ok)
	require.IsType(t, &fieldScore{}, s)
	s, ok = toScorer(cond)
	require.True(t, ok)
	ctx := vm.L.NewTable()
	got, err := s.Score(vm, ctx)
	require.NoError(t, err)
	require.Zero(t, got)
	ctx.RawSetString("a", lua.LTrue)
	got, err = s.Score(vm, ctx)
	require.NoError(t, err)
	require.Equal(t, 1.0, got)
	for _, v := range []lua.LValue{str, tbl, boolean, lua.LNil} {
		_, ok := toScorer(v)
		require.False(t, ok, v.Type().String())
	}

	// A nil context reads every field as nil.
	got, err = s.Score(vm, nil)
	require.NoError(t, err)
	require.Zero(t, got)
}

func TestNativeExportsAndTypes(t *testing.T) {
	names := make([]string, 0)
	for name := range nativeExports() {
		names = append(names, name)
	}
	require.ElementsMatch(t, []string{
		"is", "eq", "ne", "lt", "le", "gt", "ge", "all", "any", "non",
		"const", "field", "cond", "inverse", "product", "sum", "min", "max", "weight", "normalize", "curve", "compensated",
	}, names)

	L := lua.NewState()
	defer L.Close()
	registerNativeTypes(L)
	cmt, smt := L.GetTypeMetatable(condTypeName), L.GetTypeMetatable(scorerTypeName)
	getter := L.G.Registry.RawGetString(getFieldKey)
	registerNativeTypes(L)
	require.Same(t, cmt, L.GetTypeMetatable(condTypeName))
	require.Same(t, smt, L.GetTypeMetatable(scorerTypeName))
	require.Same(t, getter, L.G.Registry.RawGetString(getFieldKey))

	// Natives built on a bare LState register the types themselves.
	bare := lua.NewState()
	defer bare.Close()
	bare.SetGlobal("gt", bare.NewFunction(nativeExports()["gt"]))
	require.NoError(t, bare.DoString(`x = tostring(gt("a", 1))`))
	require.Equal(t, `ai.gt("a", 1)`, bare.GetGlobal("x").String())
	require.NoError(t, bare.DoString(`m = getmetatable(gt("a", 1))`))
	require.Equal(t, condTypeName, bare.GetGlobal("m").String())

	// The hand-built VM the other tests could use works too.
	vm := &VM{VM: &luabind.VM{L: bare}}
	require.NoError(t, bare.DoString(`c = gt("a", 1)`))
	c, ok := toCond(bare.GetGlobal("c"))
	require.True(t, ok)
	ctx := bare.NewTable()
	ctx.RawSetString("a", lua.LNumber(2))
	got, err := c.Test(vm, ctx, lua.LNil)
	require.NoError(t, err)
	require.True(t, got)
}

const (
	benchCondExpr   = `ai.all(ai.gt("hunger", 0.5), ai.lt("target.distance", 10), ai.non(ai.is("dead")), ai.eq("mood", "angry"), ai.any(false, ai.ne("target.tag", "friend")))`
	benchScorerExpr = `ai.compensated(ai.curve(ai.field("hunger"), {kind = "logistic", k = 2}),
		ai.inverse(ai.normalize(ai.field("target.distance"), 0, 20)),
		ai.max(ai.cond(ai.is("alive")), 0.2, ai.is("dead")),
		ai.weight(ai.sum(ai.field("hunger"), 0.1), 0.5),
		ai.min(ai.product(0.9, ai.field("hunger")), 1))`
	benchCtx = `{hunger = 0.7, mood = "angry", alive = true, target = {distance = 4, tag = "enemy"}}`
)

// TestNativeNoAllocs checks what the benchmarks show: native evaluation
// allocates nothing.
func TestNativeNoAllocs(t *testing.T) {
	vm := newNativeVM(t)
	c, ctx, p := buildCond(t, vm, benchCondExpr, benchCtx, "")
	ok, err := c.Test(vm, ctx, p)
	require.NoError(t, err)
	require.True(t, ok)
	require.Zero(t, testing.AllocsPerRun(200, func() { _, _ = c.Test(vm, ctx, p) }))

	s, sctx := buildScorer(t, vm, benchScorerExpr, benchCtx)
	v, err := s.Score(vm, sctx)
	require.NoError(t, err)
	require.Greater(t, v, 0.0)
	require.Zero(t, testing.AllocsPerRun(200, func() { _, _ = s.Score(vm, sctx) }))
}

func BenchmarkNativeCond(b *testing.B) {
	vm := newNativeVM(b)
	c, ctx, p := buildCond(b, vm, benchCondExpr, benchCtx, "")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if ok, err := c.Test(vm, ctx, p); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkNativeScorer(b *testing.B) {
	vm := newNativeVM(b)
	s, ctx := buildScorer(b, vm, benchScorerExpr, benchCtx)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Score(vm, ctx); err != nil {
			b.Fatal(err)
		}
	}
}
