package host

import (
	"fmt"
	"math"
	"slices"

	"github.com/luaai/luaai/host/internal/link"
	"github.com/luaai/luaai/internal/luatext"
	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/internal/suggest"
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// Behaviour trees (docs/lua-reference.md: Behaviour trees): the body a state runs in its
// update phase (its update hook, its steps, its tree), one tick function
// per kind of node (the kinds are luabind's table), and how a tree's
// records are saved, restored, carried over a reload and shown.

// btRT is the record of one behaviour-tree node in an agent. Halting a node
// clears it except for a cooldown's finish time, which only a re-entry of
// the tree state clears.
type btRT struct {
	start   float64 // wait, timeout: the tree state's time when it started
	cool    float64 // cooldown: the tree state's time when its child last finished
	idx     int32   // composites: the running child (position among the kids); loop: the runs finished
	done    uint8   // set by a parallel parent: 0 unfinished, else 1 + the child's status
	on      bool    // it returned "running" at its last tick
	cooling bool    // cooldown: cool is set
}

func (r *btRT) clear() { r.start, r.idx, r.done, r.on = 0, 0, 0, false }

// body runs what a state does in an update: its update hook, its steps,
// its tree, with the update's dt.
func (a *Agent) body(n *place, dt lua.LValue, fdt float64) {
	if fn := n.def.Update; fn != nil {
		a.hookDt(n, fn, dt)
	}
	if n.def.Steps != nil {
		a.runSteps(n, dt, fdt)
	}
	if n.bt != nil {
		// Tree time is the sum of the updates' dt, as steps count it.
		a.nodes[n.id].treeTime += fdt
		a.tickTree(n, dt)
	}
}

// tickTree ticks the tree of state n once; when its root finishes, the
// agent is sent "tree:success" or "tree:failure" with the state's path.
func (a *Agent) tickTree(n *place, dt lua.LValue) {
	st := a.btTick(n, 0, dt)
	if st == defs.Running {
		return
	}
	name := "tree:failure"
	if st == defs.Success {
		name = "tree:success"
	}
	a.incoming = append(a.incoming, event{name: name, payload: n.pathLV})
	if a.tracesDecisions() { // a why-trace line, where decisions are traced
		a.traceLine(n, "the tree finished: "+name+" sent")
	}
}

// resetTree clears the records of n's tree, cooldowns included (entering
// or leaving the state).
func (a *Agent) resetTree(n *place) {
	clear(a.bt[n.btBase : n.btBase+len(n.bt.Nodes)])
}

// halt clears the records of the nodes [from, to) of n's tree (a
// subtree): they start afresh; no Lua runs.
func (a *Agent) halt(n *place, from, to int) {
	for i := from; i < to; i++ {
		a.bt[n.btBase+i].clear()
	}
}

// haltRunning halts the children of tn after position k that are running.
func (a *Agent) haltRunning(n *place, tn *defs.BTPlace, k int) {
	for _, c := range tn.Kids[k+1:] {
		if a.bt[n.btBase+c].on {
			a.halt(n, c, n.bt.Nodes[c].End)
		}
	}
}

// btTicker ticks node i of n's tree: one per kind of node.
type btTicker func(a *Agent, n *place, i int, dt lua.LValue) defs.Status

// btTickers is the tick function of each kind of node (docs/lua-reference.md: Behaviour
// trees); the kinds themselves are luabind's.
var btTickers [defs.BTKindCount]btTicker

func init() {
	btTickers = [defs.BTKindCount]btTicker{
		defs.BTSequence:         tickSequence,
		defs.BTReactiveSequence: tickSequence,
		defs.BTSelector:         tickSequence,
		defs.BTReactiveSelector: tickSequence,
		defs.BTParallel:         tickParallel,
		defs.BTInvert:           tickInvert,
		defs.BTForce:            tickForce,
		defs.BTLoop:             tickLoop,
		defs.BTRetry:            tickRetry,
		defs.BTCooldown:         tickCooldown,
		defs.BTTimeout:          tickTimeout,
		defs.BTAction:           tickAction,
		defs.BTCheck:            tickCheck,
		defs.BTWaitUntil:        tickCheck,
		defs.BTWait:             tickWait,
	}
}

// btTick ticks node i of n's tree.
func (a *Agent) btTick(n *place, i int, dt lua.LValue) defs.Status {
	if a.w.cov != nil {
		a.cover(link.CoverTreeNode, n.id, i)
	}
	return btTickers[n.bt.Nodes[i].Def.Kind](a, n, i, dt)
}

// tickSequence ticks a sequence or selector, reactive or not.
func tickSequence(a *Agent, n *place, i int, dt lua.LValue) defs.Status {
	tn := &n.bt.Nodes[i]
	d := tn.Def
	rt := &a.bt[n.btBase+i]
	keep := defs.Success // a sequence goes on while its children succeed
	if d.Kind == defs.BTSelector || d.Kind == defs.BTReactiveSelector {
		keep = defs.Failure // a selector while they fail
	}
	reactive := d.Kind == defs.BTReactiveSequence || d.Kind == defs.BTReactiveSelector
	k := 0
	if !reactive {
		k = int(rt.idx)
	}
	for ; k < len(tn.Kids); k++ {
		st := a.btTick(n, tn.Kids[k], dt)
		if st == keep {
			continue
		}
		if reactive {
			a.haltRunning(n, tn, k)
		}
		if st == defs.Running {
			rt.idx, rt.on = int32(k), true
			return st
		}
		rt.clear()
		return st
	}
	rt.clear()
	return keep
}

// tickParallel ticks an ai.parallel.
func tickParallel(a *Agent, n *place, i int, dt lua.LValue) defs.Status {
	tn := &n.bt.Nodes[i]
	d := tn.Def
	rt := &a.bt[n.btBase+i]
	succ, fail, first := 0, 0, -1
	for k, c := range tn.Kids {
		crt := &a.bt[n.btBase+c]
		if crt.done == 0 {
			st := a.btTick(n, c, dt)
			if st == defs.Running {
				if first < 0 {
					first = k
				}
				continue
			}
			crt.done = 1 + uint8(st)
		}
		if crt.done == 1+uint8(defs.Success) {
			succ++
		} else {
			fail++
		}
		var st defs.Status
		switch {
		case d.SucceedOne && succ >= 1 || !d.SucceedOne && succ == len(tn.Kids):
			st = defs.Success
		case d.FailAll && fail == len(tn.Kids) || !d.FailAll && fail >= 1:
			st = defs.Failure
		default:
			continue
		}
		a.halt(n, i, tn.End)
		return st
	}
	if first < 0 { // all finished, neither rule met
		a.halt(n, i, tn.End)
		return defs.Failure
	}
	rt.idx, rt.on = int32(first), true
	return defs.Running
}

// tickInvert ticks an ai.invert.
func tickInvert(a *Agent, n *place, i int, dt lua.LValue) defs.Status {
	tn := &n.bt.Nodes[i]
	rt := &a.bt[n.btBase+i]
	st := a.btTick(n, tn.Kids[0], dt)
	switch st {
	case defs.Success:
		st = defs.Failure
	case defs.Failure:
		st = defs.Success
	}
	rt.on = st == defs.Running
	return st
}

// tickForce ticks an ai.force.
func tickForce(a *Agent, n *place, i int, dt lua.LValue) defs.Status {
	tn := &n.bt.Nodes[i]
	d := tn.Def
	rt := &a.bt[n.btBase+i]
	if st := a.btTick(n, tn.Kids[0], dt); st == defs.Running {
		rt.on = true
		return st
	}
	rt.on = d.Status == defs.Running
	return d.Status
}

// tickLoop ticks an ai.loop.
func tickLoop(a *Agent, n *place, i int, dt lua.LValue) defs.Status {
	tn := &n.bt.Nodes[i]
	d := tn.Def
	rt := &a.bt[n.btBase+i]
	switch a.btTick(n, tn.Kids[0], dt) {
	case defs.Running:
		rt.on = true
		return defs.Running
	case defs.Failure:
		rt.clear()
		return defs.Failure
	}
	rt.idx++
	if d.Count > 0 && int(rt.idx) >= d.Count {
		rt.clear()
		return defs.Success
	}
	rt.on = true // the next run starts at the next tick
	return defs.Running
}

// tickRetry ticks an ai.retry: a failed run of its child is tried again
// at the next tick, up to Count more times (forever without a count); its
// record counts the failures.
func tickRetry(a *Agent, n *place, i int, dt lua.LValue) defs.Status {
	tn := &n.bt.Nodes[i]
	rt := &a.bt[n.btBase+i]
	switch a.btTick(n, tn.Kids[0], dt) {
	case defs.Running:
		rt.on = true
		return defs.Running
	case defs.Success:
		rt.clear()
		return defs.Success
	}
	if tn.Def.Count > 0 && int(rt.idx) >= tn.Def.Count {
		rt.clear()
		return defs.Failure
	}
	if rt.idx < math.MaxInt32 {
		rt.idx++
	}
	rt.on = true // the next try starts at the next tick
	return defs.Running
}

// tickCooldown ticks an ai.cooldown.
func tickCooldown(a *Agent, n *place, i int, dt lua.LValue) defs.Status {
	tn := &n.bt.Nodes[i]
	d := tn.Def
	rt := &a.bt[n.btBase+i]
	now := a.nodes[n.id].treeTime
	if rt.cooling && now-rt.cool+eps < d.Seconds {
		return defs.Failure
	}
	st := a.btTick(n, tn.Kids[0], dt)
	rt.on = st == defs.Running
	if !rt.on {
		rt.cooling, rt.cool = true, now
	}
	return st
}

// tickTimeout ticks an ai.timeout.
func tickTimeout(a *Agent, n *place, i int, dt lua.LValue) defs.Status {
	tn := &n.bt.Nodes[i]
	d := tn.Def
	rt := &a.bt[n.btBase+i]
	now := a.nodes[n.id].treeTime
	if rt.on && now-rt.start+eps >= d.Seconds {
		a.halt(n, i, tn.End)
		return defs.Failure
	}
	st := a.btTick(n, tn.Kids[0], dt)
	if st != defs.Running {
		rt.clear()
		return st
	}
	if !rt.on {
		rt.on, rt.start = true, now
	}
	return st
}

// tickAction ticks an ai.action.
func tickAction(a *Agent, n *place, i int, dt lua.LValue) defs.Status {
	tn := &n.bt.Nodes[i]
	d := tn.Def
	rt := &a.bt[n.btBase+i]
	v, err := a.callStatus(n, d.Fn, dt, cbAction)
	st, ok := defs.ParseStatus(v)
	switch {
	case err != nil:
		a.reportAt(n, CallbackAction, err, " (tree node "+tn.Path+")")
		st = defs.Failure
	case !ok:
		a.report(n, CallbackAction, fmt.Errorf("%s: ai.action %q returned %s, not a status (\"success\", \"failure\", \"running\", true, false or nil)",
			scripterr.FuncPos(d.Fn, d.Pos), tn.Path, describeValue(v)))
	}
	rt.on = st == defs.Running
	return st
}

// tickCheck ticks an ai.check or an ai.wait_until.
func tickCheck(a *Agent, n *place, i int, dt lua.LValue) defs.Status {
	tn := &n.bt.Nodes[i]
	d := tn.Def
	rt := &a.bt[n.btBase+i]
	ok, err := a.testCond(n, d.Cond, cbCheck)
	if err != nil {
		a.reportAt(n, CallbackCheck, err, " (tree node "+tn.Path+")")
		rt.on = false
		return defs.Failure
	}
	if ok {
		rt.on = false
		return defs.Success
	}
	if d.Kind == defs.BTCheck {
		return defs.Failure
	}
	rt.on = true
	return defs.Running
}

// tickWait ticks an ai.wait.
func tickWait(a *Agent, n *place, i int, dt lua.LValue) defs.Status {
	d := n.bt.Nodes[i].Def
	rt := &a.bt[n.btBase+i]
	now := a.nodes[n.id].treeTime
	if !rt.on {
		rt.on, rt.start = true, now
	}
	if now-rt.start+eps >= d.Seconds {
		rt.clear()
		return defs.Success
	}
	return defs.Running
}

// runningLeaf is the deepest running node of n's tree, or -1 while the
// root is not running.
func (a *Agent) runningLeaf(n *place) int {
	i := 0
	if !a.bt[n.btBase].on {
		return -1
	}
	for {
		tn := &n.bt.Nodes[i]
		if len(tn.Kids) == 0 {
			return i
		}
		c := tn.Kids[0]
		if tn.Def.Kind.IsComposite() {
			c = tn.Kids[a.bt[n.btBase+i].idx]
		}
		if !a.bt[n.btBase+c].on {
			return i
		}
		i = c
	}
}

// callStatus runs an action or a step item: fn(ctx, dt).
func (a *Agent) callStatus(n *place, fn *lua.LFunction, dt lua.LValue, k callback) (lua.LValue, error) {
	pn, pk, ps := a.setCur(n, k)
	v, err := a.w.vm.CallStatus(fn, a.ctx, dt)
	a.cur, a.curKind, a.curScore = pn, pk, ps
	return v, err
}

// testCond tests a check or a wait_until; the caller reports its error.
func (a *Agent) testCond(n *place, c defs.Cond, k callback) (bool, error) {
	pn, pk, ps := a.setCur(n, k)
	var ok bool
	var err error
	if a.w.prof == nil {
		ok, err = c.Test(a.w.vm, a.ctx, lua.LNil)
	} else {
		ok, err = a.testProfiled(c, lua.LNil)
	}
	a.cur, a.curKind, a.curScore = pn, pk, ps
	return ok, err
}

// describeValue writes a value for an error: strings quoted and cut.
func describeValue(v lua.LValue) string {
	if s, ok := v.(lua.LString); ok {
		if best := suggest.Closest(string(s), []string{"success", "failure", "running"}); best != "" {
			return fmt.Sprintf("%q (did you mean %q?)", luatext.CutText(string(s), 60), best)
		}
		return fmt.Sprintf("%q", luatext.CutText(string(s), 60))
	}
	return fmt.Sprintf("%s (a %s)", luatext.CutText(lua.LVAsString(v), 60), v.Type())
}

// nodeSnapshot is a behaviour-tree node's record (btRT).
type nodeSnapshot struct {
	Running bool     `json:"running,omitempty"`
	Child   int      `json:"child,omitempty"` // composites: the running child, from 0; loop: runs finished
	Start   float64  `json:"start,omitempty"`
	Done    string   `json:"done,omitempty"` // a parallel's finished child: "success" or "failure"
	Cool    *float64 `json:"cooled_at,omitempty"`
}

// treeSnapshot saves the records of n's tree that hold something.
func (a *Agent) treeSnapshot(n *place) map[string]nodeSnapshot { return treeRecords(a.bt, n) }

// treeRecords is treeSnapshot from a copy of an agent's records.
func treeRecords(bt []btRT, n *place) map[string]nodeSnapshot {
	var out map[string]nodeSnapshot
	for i, tn := range n.bt.Nodes {
		r := bt[n.btBase+i]
		if r == (btRT{}) {
			continue
		}
		s := nodeSnapshot{Running: r.on, Child: int(r.idx), Start: r.start}
		if r.done != 0 {
			s.Done = defs.Status(r.done - 1).String()
		}
		if r.cooling {
			c := r.cool
			s.Cool = &c
		}
		if out == nil {
			out = map[string]nodeSnapshot{}
		}
		out[tn.Path] = s
	}
	return out
}

// restoreTree reads what treeSnapshot saved.
func (a *Agent) restoreTree(n *place, saved map[string]nodeSnapshot) error {
	for path, s := range saved {
		i := n.bt.Find(path)
		if i < 0 {
			return fmt.Errorf("tree node %q is not in the tree", path)
		}
		tn := &n.bt.Nodes[i]
		r := btRT{on: s.Running, idx: int32(s.Child), start: s.Start}
		switch {
		case !finite(s.Start) || s.Start < 0:
			return fmt.Errorf("tree node %q: start %v", path, s.Start)
		case s.Child < 0 || s.Child > tn.Def.Progress(len(tn.Kids)):
			return fmt.Errorf("tree node %q: child %d out of range", path, s.Child)
		}
		switch s.Done {
		case "":
		case "success", "failure":
			if tn.Parent < 0 || n.bt.Nodes[tn.Parent].Def.Kind != defs.BTParallel {
				return fmt.Errorf("tree node %q: done is for children of ai.parallel", path)
			}
			st, _ := defs.ParseStatus(lua.LString(s.Done))
			r.done = 1 + uint8(st)
		default:
			return fmt.Errorf("tree node %q: done %q", path, s.Done)
		}
		if s.Cool != nil {
			if !finite(*s.Cool) || *s.Cool < 0 || !tn.Def.Cools() {
				return fmt.Errorf("tree node %q: cooled_at %v", path, *s.Cool)
			}
			r.cooling, r.cool = true, *s.Cool
		}
		a.bt[n.btBase+i] = r
	}
	return nil
}

// treeView adds the running nodes of tree state n, as "state[node]".
func (a *Agent) treeView(n *place, v *link.AgentView) {
	if n.bt == nil {
		return
	}
	for i, tn := range n.bt.Nodes {
		if a.bt[n.btBase+i].on {
			v.Active = append(v.Active, n.path+"["+tn.Path+"]")
		}
	}
}

// treeInfo describes node i of tree state n and the nodes below it.
func treeInfo(n *place, i int) *link.TreeNodeInfo {
	tn := &n.bt.Nodes[i]
	out := &link.TreeNodeInfo{Label: tn.Def.Label(), Name: tn.Name, Path: n.btPaths[i]}
	for _, c := range tn.Kids {
		out.Kids = append(out.Kids, treeInfo(n, c))
	}
	return out
}

// remapTree carries the records of a tree over a reload (docs/lua-reference.md: Behaviour
// trees): cooldown timers where the node path still exists; the running
// path's records when every node on it still exists, of the same kind,
// else the tree starts again at its root.
func remapTree(o, n *place, from, to []btRT) {
	match := func(i int) int {
		j := n.bt.Find(o.bt.Nodes[i].Path)
		if j < 0 || n.bt.Nodes[j].Def.Kind != o.bt.Nodes[i].Def.Kind {
			return -1
		}
		return j
	}
	keep := true
	for i := 0; i < len(o.bt.Nodes); i++ {
		if r := from[o.btBase+i]; r.on && match(i) < 0 {
			keep = false
			break
		}
	}
	for i, tn := range o.bt.Nodes {
		r := from[o.btBase+i]
		j := match(i)
		if j < 0 {
			continue
		}
		if !keep {
			r.clear()
		} else if tn.Def.Kind.IsComposite() && r.on {
			// The running child, by name: its place may have moved.
			nk := n.bt.Nodes[j].Kids
			c := n.bt.Find(o.bt.Nodes[tn.Kids[r.idx]].Path)
			r.idx = int32(max(0, slices.Index(nk, c)))
		}
		to[n.btBase+j] = r
	}
}
