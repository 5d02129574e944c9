package host

// What package hosttool reads of a host goes through host/internal/link:
// host registers its unexported functions there when it is initialised.

import (
	"github.com/luaai/luaai/host/internal/link"
	"github.com/luaai/luaai/luabind/defs"
)

func init() {
	link.Funcs.View = func(a any) link.AgentView { return a.(*Agent).view() }
	link.Funcs.Structure = func(b any, build func(*link.StateInfo) any) any {
		return b.(*Behaviour).structure(build)
	}
	link.Funcs.Definition = func(b any) *defs.State { return b.(*Behaviour).definition() }
	link.Funcs.RunLua = func(h any, fn func(*defs.VM) error) error { return h.(*Host).runLua(fn) }
	link.Funcs.Coverage = func(h any) []link.BehaviourCoverage { return h.(*Host).coverage() }
	link.Funcs.CoverageHits = func(h any, fn func(link.CoverageItem)) { h.(*Host).coverageHits(fn) }
	link.Funcs.ResetCoverage = func(h any) { h.(*Host).resetCoverage() }
	link.Funcs.Profile = func(h any) link.Profile { return h.(*Host).profile() }
	link.Funcs.Observe = func(h any, o link.Observer) link.Observation { return h.(*Host).observe(o) }
}
