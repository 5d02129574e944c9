package host

// Steps (docs/lua-reference.md: Steps): a state's list of items run in order in its
// update phase, after its update hook and before its tree and children —
// their tick, the check of a saved progress, how a reload carries it over
// and how hosttool.View shows it. Their progress lives in the state's placeRT
// (step, stepTime, stepSeen), saved by snapshots with the state's timers.

import (
	"fmt"

	"github.com/luaai/luaai/host/internal/link"
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// runSteps runs the steps of n for one update: from the current item, each
// item at most once, until one has not completed.
func (a *Agent) runSteps(n *place, dt lua.LValue, fdt float64) {
	steps := n.def.Steps
	rt := &a.nodes[n.id]
	if rt.step >= len(steps) {
		return // done, until the state is entered again
	}
	if rt.stepSeen {
		rt.stepTime += fdt
	}
	begin := rt.step
	for {
		item := steps[rt.step]
		if !rt.stepSeen && a.w.cov != nil {
			a.cover(link.CoverStep, n.id, rt.step)
		}
		rt.stepSeen = true
		done := true
		switch item.Kind {
		case defs.BTAction:
			v, err := a.callStatus(n, item.Fn, dt, cbSteps)
			if err != nil {
				a.report(n, CallbackSteps, err) // counts as completed
			} else if v == lua.LString("running") {
				done = false
			}
		case defs.BTWait:
			done = rt.stepTime+eps >= item.Seconds
		case defs.BTWaitUntil:
			ok, err := a.testCond(n, item.Cond, cbWaitUntil)
			if err != nil {
				a.report(n, CallbackSteps, err) // counts as false
			}
			done = ok && err == nil
		}
		if !done {
			return
		}
		rt = &a.nodes[n.id]
		rt.step, rt.stepTime, rt.stepSeen = rt.step+1, 0, false
		if rt.step == len(steps) {
			if !n.def.StepsLoop {
				return
			}
			rt.step = 0
		}
		if rt.step == begin {
			// A loop stops where this update began: that item has been
			// reached in this update (a wait there counts it as 0).
			rt.stepSeen = true
			return
		}
	}
}

// sameSteps: a reload keeps a state's steps progress when the list has the
// same length and the current item the same kind.
func sameSteps(old, nw []*defs.BTNode, at int) bool {
	if len(old) != len(nw) {
		return false
	}
	return at >= len(old) || old[at].Kind == nw[at].Kind
}

// stepsView adds where n's steps are, when it has some.
func (a *Agent) stepsView(n *place, v *link.AgentView) {
	if len(n.def.Steps) == 0 {
		return
	}
	rt := a.nodes[n.id]
	v.Steps = append(v.Steps, link.StepsView{State: n.path, Item: rt.step, Of: len(n.def.Steps), Time: rt.stepTime})
}

// checkSteps checks the steps progress a snapshot gives state n.
func checkSteps(n *place, st stateSnapshot) error {
	if st.Step < 0 || st.Step > len(n.def.Steps) || !finite(st.StepTime) || st.StepTime < 0 {
		return fmt.Errorf("steps at item %d (of %d), time %v", st.Step, len(n.def.Steps), st.StepTime)
	}
	return nil
}

// remapSteps carries state o's steps progress over a reload to n (rt, a
// copy of o's record): kept when sameSteps says so, else restarted; it
// reports a restart of steps that had begun.
func remapSteps(o, n *place, rt *placeRT) (restarted bool) {
	if len(o.def.Steps) == 0 || sameSteps(o.def.Steps, n.def.Steps, rt.step) {
		return false
	}
	restarted = rt.step > 0 || rt.stepSeen
	rt.step, rt.stepTime, rt.stepSeen = 0, 0, false
	return restarted
}
