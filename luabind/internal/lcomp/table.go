package lcomp

import (
	"github.com/luaai/luaai/internal/luaval"
	lua "github.com/yuin/gopher-lua"
)

// A write of a field the table already holds, the usual ctx.x = ctx.x + dt,
// is a store into the table's string map. gopher-lua's RawSetString also
// looks the key up in the map that orders keys for next() (keyed by an
// interface, so a hash and comparison of the interface, which costs more
// than the store): a key present in the string map is always in that map
// too (RawSetString is the only writer of the string map and adds the key
// to both), so for such a key that lookup finds it and changes nothing.
// The compiled path stores into the string map directly where the key is
// present and the value is not nil, and calls RawSetString otherwise.
//
// The string map is unexported: luaval.StringMap reads it where
// gopher-lua's layout is the one checked at start (else every write goes
// through RawSetString).

// strdict is t's string map, or nil.
func strdict(t *lua.LTable) map[string]lua.LValue { return luaval.StringMap(t) }

// setField is t.RawSetString(key, v) for a field t holds as present (in
// sd, t's string map) or not.
func setField(t *lua.LTable, sd map[string]lua.LValue, present bool, key string, v lua.LValue) {
	if present && v != lua.LNil {
		sd[key] = v
		return
	}
	t.RawSetString(key, v)
}
