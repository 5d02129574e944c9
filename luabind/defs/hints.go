package defs

import (
	"strings"

	"github.com/luaai/luaai/internal/luacode"
	lua "github.com/yuin/gopher-lua"
)

// What a behaviour's code says about the inputs it expects: the keys it
// reads from a parameter, the constants it compares with. luaai explore
// builds its inputs from these; they are read from the compiled code, so
// they are hints, never a promise.

// Comparison is a context field a native condition compares with a
// constant: ai.eq("mood", "angry"), ai.gt("hp", 10).
type Comparison struct {
	Field string // the dotted path as written
	Value lua.LValue
}

// comparer is a native that compares its field with a constant.
type comparer interface {
	compared() lua.LValue
}

func (c *eqCond) compared() lua.LValue  { return c.value }
func (c *numCond) compared() lua.LValue { return lua.LNumber(c.n) }

// NativeComparisons lists the comparisons with constants inside a native
// condition or scorer, in the order written.
func NativeComparisons(v any) []Comparison {
	var out []Comparison
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		n, ok := v.(native)
		if !ok || depth > 64 {
			return
		}
		if c, ok := v.(comparer); ok {
			if f := n.field(); f != nil {
				out = append(out, Comparison{Field: f.name, Value: c.compared()})
			}
		}
		for _, sub := range n.contains() {
			walk(sub, depth+1)
		}
	}
	walk(v, 0)
	return out
}

// NativeUses adds to uses how a native condition or scorer uses the
// context fields it reads (their first key): compared with a number, a
// constant, or read as a number by a scorer.
func NativeUses(v any, uses map[string]*luacode.Use) {
	for _, f := range NativeFields(v) {
		if uses[topField(f)] == nil {
			uses[topField(f)] = &luacode.Use{}
		}
		if strings.Contains(f, ".") {
			uses[topField(f)].Table = true
		}
	}
	for _, c := range NativeComparisons(v) {
		u := uses[topField(c.Field)]
		if u == nil || strings.Contains(c.Field, ".") {
			continue
		}
		if _, ok := c.Value.(lua.LNumber); ok {
			u.Number = true
		}
		u.Values = luacode.AppendValue(u.Values, c.Value)
	}
}

func topField(path string) string {
	if i := strings.IndexByte(path, '.'); i >= 0 {
		return path[:i]
	}
	return path
}
