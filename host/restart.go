package host

import (
	"fmt"

	"github.com/luaai/luaai/internal/scripterr"
	lua "github.com/yuin/gopher-lua"
)

// Reset takes the agent back to its behaviour's initial state and keeps
// its context: every active state is exited, deepest first (their exit
// hooks run), every machine forgets its history and pending push, pop or
// replace, and the root is entered again as Spawn enters it (enter hooks
// run). A suspended agent is resumed. It frees an agent stuck where no
// transition leads out (a state paused on a stack that nothing pops back
// to) without losing what it knows. Observers see a TransitionReset.
//
// Like Spawn it may be called from the hooks of Options; from a script
// while the workers run it returns ErrReentrant.
func (a *Agent) Reset() error { return a.restart(TransitionReset, nil) }

// Respawn is Reset with a fresh context: the behaviour's context defaults
// with overrides over them, as Spawn makes it (the old context is
// dropped, and the Go values bound into it with Bind are released; the
// objects Sync keeps in step stay at their keys). The agent keeps
// its id, so the ids other agents hold still reach it. Observers see a
// TransitionRespawn.
func (a *Agent) Respawn(overrides map[string]any) error {
	return a.restart(TransitionRespawn, overrides)
}

func (a *Agent) restart(kind TransitionKind, overrides map[string]any) error {
	if err := a.usable(); err != nil {
		return err
	}
	if a.ticking {
		return ErrTicking
	}
	var ctx *lua.LTable
	var bound []uintptr
	if kind == TransitionRespawn {
		L := a.w.vm.L
		ctx = a.t.newContext(L)
		c := converter{L: L, h: a.h, agent: a.id}
		for _, k := range sortedMapKeys(overrides) {
			ctx.RawSetString(k, c.value(overrides[k]))
		}
		if c.err != nil {
			for _, k := range c.bound {
				delete(a.h.boundBy, k)
			}
			return fmt.Errorf("respawn: %w", c.err)
		}
		bound = c.bound
	}
	from := a.Path()
	old := a.w.vm.SetRunner(runner{a})
	a.ticking = true
	a.exit(a.t.root)
	for i := range a.ms {
		a.ms[i].history = -1
		a.ms[i].req = request{}
	}
	if ctx != nil {
		for _, s := range a.syncs {
			ctx.RawSetString(s.key, s.t) // the game's object, still in step
		}
		a.h.release(a)
		a.ctx, a.bound = ctx, bound
	}
	a.suspension, a.overruns, a.suspendAt, a.suspendText = NotSuspended, 0, scripterr.Pos{}, ""
	a.enter(a.t.root, lua.LNil)
	a.ticking = false
	a.cur, a.curKind, a.curScore = nil, cbNone, false
	a.w.vm.SetRunner(old)
	a.emitState(kind, from)
	a.h.dispatch()
	return nil
}
