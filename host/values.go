package host

import "github.com/luaai/luaai/internal/luaval"

// MaxSequence is the longest sequence a Lua table holds here: larger
// whole-number keys are ordinary keys, which # and ipairs do not see.
const MaxSequence = 1 << 17

// ErrLongList: a list longer than MaxSequence, in a value written from
// outside the scripts.
var ErrLongList = luaval.ErrLongList

// CheckLists refuses a list in v, at any depth, longer than MaxSequence
// (an error wrapping ErrLongList); v is Go data as encoding/json decodes
// it. The CLI's --input and the inspector's commands check their values
// with it before writing them.
func CheckLists(v any) error { return luaval.CheckLists(v) }
