package inspect

import (
	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/bridge"
	"github.com/luaai/luaai/luabind"
)

// Definition is the validated definition a loaded behaviour runs, for Lint
// and WriteGraph: load the script with host.LoadFile (the same compile
// step, sandbox, roots and checks as a game), then look at what it built.
func Definition(b *host.Behaviour) *luabind.State { return bridge.Definition(b) }
