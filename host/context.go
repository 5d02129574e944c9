package host

import (
	"fmt"
	"reflect"
	"sort"

	"github.com/luaai/luaai/internal/luaval"
	lua "github.com/yuin/gopher-lua"
	luar "layeh.com/gopher-luar"
)

// Get reads a top-level context field as plain Go data:
// nil, bool, float64, string, []any for a table whose keys are 1..n,
// map[string]any for any other table, the bound Go value for a userdata,
// "function" for a function. Use it from the host's goroutine, between
// ticks, or from the agent's own callbacks (Caller).
//
// While the workers tick, only the agent's own callbacks may read it (see
// the package's Concurrency section): any other caller gets nil, and the
// first refusal of each behaviour is reported to OnError.
func (a *Agent) Get(key string) any {
	if !a.readable("Get") {
		return nil
	}
	return luaval.ToGo(a.ctx.RawGetString(key))
}

// Context returns the whole context as plain Go data, converted as Get
// converts a field. Use it from the host's goroutine, between ticks, or
// from the agent's own callbacks (Caller).
//
// While the workers tick, only the agent's own callbacks may read it (see
// the package's Concurrency section): any other caller gets nil, and the
// first refusal of each behaviour is reported to OnError.
func (a *Agent) Context() map[string]any {
	if !a.readable("Context") {
		return nil
	}
	m, _ := luaval.ToGo(a.ctx).(map[string]any)
	if m == nil {
		m = map[string]any{} // an empty context, or one with only keys 1..n
		a.ctx.ForEach(func(k, v lua.LValue) { m[k.String()] = luaval.ToGo(v) })
	}
	return m
}

// Number reads a number field; ok is false when it is not a number.
//
// While the workers tick, only the agent's own callbacks may read it (see
// the package's Concurrency section): any other caller gets 0, false, and the
// first refusal of each behaviour is reported to OnError.
func (a *Agent) Number(key string) (float64, bool) {
	if !a.readable("Number") {
		return 0, false
	}
	n, ok := a.ctx.RawGetString(key).(lua.LNumber)
	return float64(n), ok
}

// Text reads a string field; ok is false when it is not a string.
//
// While the workers tick, only the agent's own callbacks may read it (see
// the package's Concurrency section): any other caller gets "", false, and the
// first refusal of each behaviour is reported to OnError.
func (a *Agent) Text(key string) (string, bool) {
	if !a.readable("Text") {
		return "", false
	}
	s, ok := a.ctx.RawGetString(key).(lua.LString)
	return string(s), ok
}

// Bool reads a boolean field; ok is false when it is not a boolean.
//
// While the workers tick, only the agent's own callbacks may read it (see
// the package's Concurrency section): any other caller gets false, false, and the
// first refusal of each behaviour is reported to OnError.
func (a *Agent) Bool(key string) (bool, bool) {
	if !a.readable("Bool") {
		return false, false
	}
	b, ok := a.ctx.RawGetString(key).(lua.LBool)
	return bool(b), ok
}

// Set writes a top-level context field. Numbers, strings, booleans, nil,
// maps with string keys and slices become Lua values; any other Go value is
// bound with gopher-luar (as Bind does, with its rule for several workers).
func (a *Agent) Set(key string, value any) error {
	if err := a.usable(); err != nil {
		return err
	}
	c := converter{L: a.w.vm.L, h: a.h, agent: a.id}
	v := c.value(value)
	if c.err != nil {
		return c.err
	}
	a.ctx.RawSetString(key, v)
	a.bound = append(a.bound, c.bound...)
	return nil
}

// SetPath writes a field of a table in the context: SetPath([]string{"target",
// "range"}, 12) is ctx.target.range = 12 in Lua. Every key but the last must
// name a table that is already there; the value converts as Set converts
// one. With one key it is Set.
func (a *Agent) SetPath(path []string, value any) error {
	if err := a.usable(); err != nil {
		return err
	}
	if len(path) == 0 {
		return fmt.Errorf("SetPath: %w", ErrBadPath)
	}
	t := a.ctx
	for i, k := range path[:len(path)-1] {
		next, ok := t.RawGetString(k).(*lua.LTable)
		if !ok {
			return fmt.Errorf("SetPath: %s: %w", joinPath(path[:i+1]), ErrBadPath)
		}
		t = next
	}
	c := converter{L: a.w.vm.L, h: a.h, agent: a.id}
	v := c.value(value)
	if c.err != nil {
		return c.err
	}
	t.RawSetString(path[len(path)-1], v)
	a.bound = append(a.bound, c.bound...)
	return nil
}

func joinPath(path []string) string {
	s := "ctx"
	for _, k := range path {
		s += "." + k
	}
	return s
}

// Bind puts a Go value into the context with gopher-luar, so Lua calls its
// methods and reads its exported fields: ctx.body:MoveTo(x, y).
//
// # Goroutines
//
// Lua calls a bound value from the goroutine of the worker that ticks the
// agent. With one worker (the default) that is the goroutine calling
// Host.Tick, and a value may be bound to any number of agents. With
// Options.Workers > 1, agents on different workers run at the same time, so
// one value bound to two agents would be called from two goroutines at
// once: Bind (and Set, Spawn) refuse that with ErrNotShared, unless the
// value is wrapped in Shared, which says it is safe for concurrent use.
func (a *Agent) Bind(key string, value any) error {
	if err := a.usable(); err != nil {
		return err
	}
	if err := byValue(value); err != nil {
		return fmt.Errorf("bind %q: %w", key, err)
	}
	if sv, ok := value.(sharedValue); ok {
		a.ctx.RawSetString(key, luar.New(a.w.vm.L, sv.v))
		return nil
	}
	c := converter{L: a.w.vm.L, h: a.h, agent: a.id}
	if err := c.own(value); err != nil {
		return err
	}
	a.ctx.RawSetString(key, luar.New(a.w.vm.L, value))
	a.bound = append(a.bound, c.bound...)
	return nil
}

// Shared marks a Go value as safe to call from several goroutines at once,
// for Bind, Set and Spawn: with Options.Workers > 1 it may then be bound to
// any number of agents. It changes nothing else: Lua sees the value itself.
func Shared(v any) any { return sharedValue{v} }

type sharedValue struct{ v any }

// own records that the converter's agent binds v; with several workers, v
// bound to another live agent is refused.
func (c *converter) own(v any) error {
	if c.h == nil || len(c.h.workers) < 2 {
		return nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.UnsafePointer:
	default:
		return nil // a copy: nothing is shared
	}
	k := rv.Pointer()
	if k == 0 {
		return nil
	}
	if c.h.boundBy == nil {
		c.h.boundBy = map[uintptr]int{}
	}
	if other, ok := c.h.boundBy[k]; ok && other != c.agent {
		return fmt.Errorf("bind %T: already bound to agent %d, and with %d workers both would call it at once: %w", v, other, len(c.h.workers), ErrNotShared)
	}
	c.h.boundBy[k] = c.agent
	c.bound = append(c.bound, k)
	return nil
}

// toLua converts plain Go data to Lua values; other values are bound with
// gopher-luar. A Go map or slice reached twice (shared, or containing
// itself) becomes one Lua table reached twice, so a self-referencing map
// converts rather than recursing without end.
func toLua(L *lua.LState, v any) lua.LValue {
	c := converter{L: L}
	return c.value(v)
}

type converter struct {
	L    *lua.LState
	seen map[convKey]*lua.LTable

	// For Bind's rule with several workers: the host, the agent that will
	// hold the values, the pointers it bound, and the first refusal.
	h     *Host
	agent int
	bound []uintptr
	err   error
}

// convKey names a Go map or slice: its type and where its data is.
type convKey struct {
	t   reflect.Type
	ptr uintptr
	n   int
}

// table returns the table already made for rv (true), or a new one
// registered for it (false). A nil map or slice gets a table of its own.
func (c *converter) table(rv reflect.Value, narr, nhash int) (*lua.LTable, bool) {
	if rv.Pointer() == 0 {
		return c.L.CreateTable(narr, nhash), false
	}
	k := convKey{rv.Type(), rv.Pointer(), rv.Len()}
	if t, ok := c.seen[k]; ok {
		return t, true
	}
	if c.seen == nil {
		c.seen = map[convKey]*lua.LTable{}
	}
	t := c.L.CreateTable(narr, nhash)
	c.seen[k] = t
	return t, false
}

// It is long because it is one switch over the Go kinds a context value may
// be converted from, each case a few lines.
func (c *converter) value(v any) lua.LValue {
	L := c.L
	switch v := v.(type) {
	case nil:
		return lua.LNil
	case lua.LValue:
		return v
	case sharedValue:
		return luar.New(L, v.v)
	case bool:
		return lua.LBool(v)
	case string:
		return lua.LString(v)
	case float64:
		return lua.LNumber(v)
	case float32:
		return lua.LNumber(v)
	case int:
		return lua.LNumber(v)
	case int64:
		return lua.LNumber(v)
	case int32:
		return lua.LNumber(v)
	case uint:
		return lua.LNumber(v)
	case uint64:
		return lua.LNumber(v)
	case uint32:
		return lua.LNumber(v)
	case map[string]any:
		t, done := c.table(reflect.ValueOf(v), 0, len(v))
		if !done {
			for _, k := range sortedMapKeys(v) {
				t.RawSetString(k, c.value(v[k]))
			}
		}
		return t
	case []any:
		t, done := c.table(reflect.ValueOf(v), len(v), 0)
		if !done {
			for i, x := range v {
				t.RawSetInt(i+1, c.value(x))
			}
		}
		return t
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
			return lua.LString(rv.Bytes()) // []byte reads as a string
		}
		if plain(rv.Type().Elem()) {
			if rv.Kind() == reflect.Array {
				t := L.CreateTable(rv.Len(), 0)
				for i := 0; i < rv.Len(); i++ {
					t.RawSetInt(i+1, c.value(rv.Index(i).Interface()))
				}
				return t
			}
			t, done := c.table(rv, rv.Len(), 0)
			if !done {
				for i := 0; i < rv.Len(); i++ {
					t.RawSetInt(i+1, c.value(rv.Index(i).Interface()))
				}
			}
			return t
		}
	case reflect.Map:
		if rv.Type().Key().Kind() == reflect.String && plain(rv.Type().Elem()) {
			keys := rv.MapKeys()
			sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
			t, done := c.table(rv, 0, len(keys))
			if !done {
				for _, k := range keys {
					t.RawSetString(k.String(), c.value(rv.MapIndex(k).Interface()))
				}
			}
			return t
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return lua.LNumber(rv.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return lua.LNumber(rv.Uint())
	case reflect.Float32, reflect.Float64:
		return lua.LNumber(rv.Float())
	case reflect.String:
		return lua.LString(rv.String())
	case reflect.Bool:
		return lua.LBool(rv.Bool())
	}
	if c.h != nil && c.err == nil {
		c.err = byValue(v)
	}
	if err := c.own(v); err != nil && c.err == nil {
		c.err = err
	}
	return luar.New(L, v)
}

// byValue refuses a struct given by value to be bound: gopher-luar would
// bind a copy, and what Lua changes the game would never see.
func byValue(v any) error {
	if sv, ok := v.(sharedValue); ok {
		v = sv.v
	}
	if v != nil && reflect.TypeOf(v).Kind() == reflect.Struct {
		return fmt.Errorf("%T: %w", v, ErrBindByValue)
	}
	return nil
}

// plain reports whether values of type t are data (numbers, strings,
// booleans, and slices and string-keyed maps of them), which become Lua
// values, rather than objects to bind with gopher-luar.
func plain(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return true
	case reflect.Interface:
		return t.NumMethod() == 0
	case reflect.Slice, reflect.Array:
		return plain(t.Elem())
	case reflect.Map:
		return t.Key().Kind() == reflect.String && plain(t.Elem())
	}
	return false
}

func sortedMapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
