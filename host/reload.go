package host

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind"
	lua "github.com/yuin/gopher-lua"
)

// ErrNoFile: Reload of a behaviour loaded from a string, which has no file
// to read again.
var ErrNoFile = errors.New("behaviour was not loaded from a file")

// ReloadResult reports one reload, to Options.OnReload.
type ReloadResult struct {
	Behaviour string // its name (file path)
	Err       error  // nil when the new definition is running
	// Added lists the top-level context defaults the new version declares
	// and the old one did not, sorted: they were added to every live
	// context that lacked them (an existing key is never overwritten).
	Added []string
	// Resumed is how many agents the reload resumed: agents suspended by
	// MaxOverruns or the Suspend fault policy whose failing line the new
	// version changed (the fix of a runaway brings its agents back).
	Resumed int
	// Vanished lists the active states the new version no longer has
	// (old paths, sorted) and Moved how many agents were in them: those
	// agents re-entered their machine's initial state. A state renamed on
	// purpose keeps its agents with the root's renamed = { old = new }.
	Vanished []string
	Moved    int
}

// reloads is the queue of reloads asked for from any goroutine.
type reloads struct {
	mu      sync.Mutex
	pending []reloadRequest
}

type reloadRequest struct {
	b   *Behaviour
	src *string // nil: read the file again
}

// Reload re-runs the behaviour's script (and what it requires), validates
// the new definition and swaps it in for every agent running it: contexts,
// active paths, stacks, timers, pending events and requests and the RNG are
// kept, matched by state path (after the root's `renamed` map). Where an
// active state is gone, its nearest surviving machine re-enters its
// initial state. The root's on_reload(ctx) runs once per agent after the
// swap. A script that fails to load or validate changes nothing and its
// error is returned.
//
// Reload must be called from the host's goroutine between ticks; from
// elsewhere use Host.QueueReload.
func (b *Behaviour) Reload() error { return b.ReloadContext(context.Background()) }

// ReloadContext is Reload stopped by ctx: when ctx ends while the new
// script runs, the reload fails (the old version keeps running) with an
// error wrapping context.Cause(ctx); on_reload hooks it stops are reported
// like any failed callback.
func (b *Behaviour) ReloadContext(ctx context.Context) error {
	if err := b.h.usable(); err != nil {
		return err
	}
	defer b.h.stopOn(ctx)()
	if b.path == "" {
		return fmt.Errorf("reload %s: %w", b.name, ErrNoFile)
	}
	proto, err := luabind.CompileFile(b.path)
	if err != nil {
		return b.h.reloaded(b, err)
	}
	return b.h.reloaded(b, b.h.swap(b, proto))
}

// ReloadSource is Reload with new source text (the name stays).
func (b *Behaviour) ReloadSource(src string) error {
	return b.ReloadSourceContext(context.Background(), src)
}

// ReloadSourceContext is ReloadSource stopped by ctx, as ReloadContext is.
func (b *Behaviour) ReloadSourceContext(ctx context.Context, src string) error {
	if err := b.h.usable(); err != nil {
		return err
	}
	defer b.h.stopOn(ctx)()
	proto, err := luabind.Compile(strings.NewReader(src), b.name)
	if err != nil {
		return b.h.reloaded(b, err)
	}
	return b.h.reloaded(b, b.h.swap(b, proto))
}

// File is the file the behaviour was loaded from, "" for LoadString
// (Files adds the modules it requires).
func (b *Behaviour) File() string { return b.path }

// Files lists the behaviour's own files: its script, then the modules it
// (and what it requires) loaded by require, sorted — what a file watcher
// should watch for it. Another mod's modules are not listed, even where
// both require the same file.
func (b *Behaviour) Files() []string {
	var out []string
	if b.path != "" {
		out = append(out, b.path)
	}
	return append(out, b.h.workers[0].vm.ModulesOf(b.layout().def)...)
}

// QueueReload asks for a reload of b from its file. It is safe to call from
// any goroutine: the reload is applied at the start of the next Host.Tick
// (or Host.ApplyReloads), and its result goes to Options.OnReload.
func (h *Host) QueueReload(b *Behaviour) { h.queueReload(b, nil) }

// QueueReloadSource asks for a reload of b from new source text, as
// QueueReload does from its file. Like QueueReload it is safe to call from
// any goroutine (an editor's or a network goroutine): the reload is applied
// at the start of the next Host.Tick (or Host.ApplyReloads), and its
// result goes to Options.OnReload.
func (h *Host) QueueReloadSource(b *Behaviour, src string) { h.queueReload(b, &src) }

func (h *Host) queueReload(b *Behaviour, src *string) {
	h.reloadQ.mu.Lock()
	h.reloadQ.pending = append(h.reloadQ.pending, reloadRequest{b: b, src: src})
	h.reloadQ.mu.Unlock()
}

// ApplyReloads applies the queued reloads now. Host.Tick calls it first.
func (h *Host) ApplyReloads() {
	if h.usable() != nil {
		return
	}
	h.reloadQ.mu.Lock()
	pending := h.reloadQ.pending
	h.reloadQ.pending = nil
	h.reloadQ.mu.Unlock()
	for _, r := range pending {
		if r.src != nil {
			_ = r.b.ReloadSource(*r.src)
		} else {
			_ = r.b.Reload()
		}
	}
}

func (h *Host) reloaded(b *Behaviour, err error) error {
	h.forgetSources()
	resumed := 0
	if err == nil {
		resumed = h.resumeFixed(b)
	}
	r := ReloadResult{Behaviour: b.name, Err: err}
	if err == nil {
		r.Added, r.Resumed, r.Vanished, r.Moved = b.added, resumed, b.vanished, b.moved
	}
	b.last = r
	if h.opts.OnReload != nil {
		h.opts.OnReload(r)
	}
	return err
}

// releaseLayouts releases the modules of a behaviour's replaced layouts
// and returns the index of the first one (a behaviour ai.spawn made has
// one worker's layout only).
func (h *Host) releaseLayouts(old []*layout) int {
	first := -1
	for i, w := range h.workers {
		if old[i] == nil {
			continue
		}
		if first < 0 {
			first = i
		}
		w.vm.ReleaseModules(old[i].def)
	}
	return max(first, 0)
}

// LastReload is what the behaviour's last reload reported (what
// Options.OnReload was told); zero before any.
func (b *Behaviour) LastReload() ReloadResult { return b.last }

// looseOf lists, by worker, the agents of b that ai.spawn made outside a
// tick and a script still holds (as luaai test files do), in id order: a
// reload swaps them too.
func (h *Host) looseOf(b *Behaviour) [][]*Agent {
	out := make([][]*Agent, len(h.workers))
	for _, p := range h.loose {
		if a := p.Value(); a != nil && a.b == b && !a.removed {
			out[a.w.index] = append(out[a.w.index], a)
		}
	}
	for _, as := range out {
		slices.SortFunc(as, func(x, y *Agent) int { return x.id - y.id })
	}
	return out
}

// resumeFixed resumes b's agents suspended by overruns or the fault policy
// whose failing line the reload changed, and says how many.
func (h *Host) resumeFixed(b *Behaviour) int {
	n := 0
	lines := map[scripterr.Pos]string{}
	for _, a := range h.agents {
		if a.b != b || (a.suspension != SuspendedByOverruns && a.suspension != SuspendedByFault) || a.suspendAt.File == "" {
			continue
		}
		now, ok := lines[a.suspendAt]
		if !ok {
			now = h.sourceLine(a.suspendAt.File, a.suspendAt.Line)
			lines[a.suspendAt] = now
		}
		if now != a.suspendText {
			a.suspension, a.overruns, a.suspendAt, a.suspendText = NotSuspended, 0, scripterr.Pos{}, ""
			n++
		}
	}
	return n
}

// newDefaults lists the top-level keys of nt's merged context defaults
// that ot's lack, sorted.
func newDefaults(ot, nt *layout) []lua.LValue {
	var keys []lua.LValue
	nt.defaults.ForEach(func(k, _ lua.LValue) {
		if ot.defaults.RawGet(k) == lua.LNil {
			keys = append(keys, k)
		}
	})
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	return keys
}

// swap loads proto in every worker, and only if all succeed remaps the agents.
func (h *Host) swap(b *Behaviour, proto *lua.FunctionProto) error {
	if err := h.usable(); err != nil {
		return err
	}
	trees := make([]*layout, len(h.workers))
	for i, w := range h.workers {
		def, err := w.vm.LoadProto(proto)
		if err != nil {
			for j := range i {
				h.workers[j].vm.ReleaseModules(trees[j].def)
			}
			return err
		}
		trees[i] = newLayout(w.vm.L, b.name, def)
	}
	old := b.layouts
	b.layouts = trees
	first := h.releaseLayouts(old)
	for _, t := range trees {
		t.def.SetOwner(b)
	}
	loose := h.looseOf(b)
	// The same keys in every worker's tree: found once.
	added := newDefaults(old[first], trees[first])
	b.added = nil
	for _, k := range added {
		b.added = append(b.added, k.String())
	}
	// Each worker remaps its own agents (their Lua state is its own), in
	// parallel as in Host.Tick; the hooks run after, in agent order. New
	// context defaults are in the contexts before on_reload runs.
	vanished := make([]map[string]int, len(h.workers)) // by worker: old path → agents
	h.eachWorker(func(w *worker) {
		var agents []*Agent
		for _, a := range w.agents {
			if a.b == b {
				agents = append(agents, a)
			}
		}
		agents = append(agents, loose[w.index]...)
		if len(agents) == 0 {
			return
		}
		ot, nt := old[w.index], trees[w.index]
		if len(added) > 0 {
			for _, a := range agents {
				for _, k := range added {
					if a.ctx.RawGet(k) == lua.LNil {
						a.ctx.RawSet(k, deepCopy(w.vm.L, nt.defaults.RawGet(k), map[*lua.LTable]*lua.LTable{}))
					}
				}
			}
		}
		p := newRemap(ot, nt, len(agents))
		p.apply(agents)
		vanished[w.index] = p.vanished
	})
	b.vanished, b.moved = nil, 0
	seen := map[string]bool{}
	for _, m := range vanished {
		for path, n := range m {
			b.moved += n
			if !seen[path] {
				seen[path] = true
				b.vanished = append(b.vanished, path)
			}
		}
	}
	slices.Sort(b.vanished)
	h.dispatch()
	return nil
}

// rename maps an old path through the root's renamed table (longest
// matching prefix first).
func rename(path string, renamed map[string]string, keys []string) string {
	for _, old := range keys {
		if path == old {
			return renamed[old]
		}
		if strings.HasPrefix(path, old+".") {
			return renamed[old] + path[len(old):]
		}
	}
	return path
}

// remapPlan moves the agents of one worker from an old tree of their
// behaviour to the new one. The state mapping depends only on the two
// trees, so it is computed once; the agents' new records come from blocks
// allocated once for all of them.
type remapPlan struct {
	ot, nt *layout
	to     []*place // by old node id: the new node of the same path, or nil
	// children[old machine id][old child index] = new child index, or -1
	children [][]int
	vanished map[string]int // active states gone in the new version: old path → agents there
}

func newRemap(ot, nt *layout, agents int) *remapPlan {
	keys := make([]string, 0, len(nt.def.Renamed))
	for k := range nt.def.Renamed {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	p := &remapPlan{ot: ot, nt: nt, to: make([]*place, len(ot.places)), children: make([][]int, len(ot.machines))}
	for _, o := range ot.places {
		p.to[o.id] = nt.byPath[rename(o.path, nt.def.Renamed, keys)]
	}
	p.to[ot.root.id] = nt.root
	for _, o := range ot.machines {
		n := p.to[o.id]
		idx := make([]int, len(o.children))
		for i, c := range o.children {
			idx[i] = -1
			if nc := p.to[c.id]; nc != nil && n != nil && nc.parent == n {
				idx[i] = nc.index
			}
		}
		p.children[o.mid] = idx
	}
	nt.pool.reserve(nt, agents)
	return p
}

func (p *remapPlan) apply(agents []*Agent) {
	for _, a := range agents {
		a.remap(p)
	}
}

// remap moves the agent onto the new tree with the given fresh records.
func (a *Agent) remap(p *remapPlan) {
	nodes, ms, bt, path, scores := p.nt.pool.take(p.nt)
	p.nt.pool.takeReads(p.nt, ms)
	var vanished []*place  // new machines whose active child is gone
	var left []leftStates  // paused states of stacks that are no more
	var restarted []*place // states whose steps start again
	var dropped []*place   // machines whose request's asker is gone
	for _, o := range p.ot.places {
		n := p.to[o.id]
		if n == nil {
			continue
		}
		nodes[n.id] = a.nodes[o.id]
		if remapSteps(o, n, &nodes[n.id]) {
			restarted = append(restarted, n)
		}
		if o.bt != nil && n.bt != nil {
			remapTree(o, n, a.bt, bt)
		}
		if !o.isMachine() || !n.isMachine() {
			continue
		}
		om, nm := &a.ms[o.mid], &ms[n.mid]
		idx := p.children[o.mid]
		gone, l := remapStack(o, n, om, nm, idx)
		if gone {
			vanished = append(vanished, n)
			if len(om.stack) > 0 && !o.isRegions() {
				if p.vanished == nil {
					p.vanished = map[string]int{}
				}
				p.vanished[o.children[om.stack[len(om.stack)-1]].path]++
			}
		}
		if l != nil {
			left = append(left, *l)
		}
		if om.history >= 0 {
			nm.history = idx[om.history]
		}
		nm.decideAcc = om.decideAcc
		if remapRequest(n, om, nm, idx) {
			dropped = append(dropped, n)
		}
	}
	oldPath := a.statePath() // on its worker, during the reload
	a.t, a.nodes, a.ms, a.bt, a.path, a.scores = p.nt, nodes, ms, bt, path, scores
	a.requested = true // a carried request waits in the new records

	old := a.w.vm.SetRunner(runner{a})
	defer a.w.vm.SetRunner(old)
	for _, l := range left {
		for i := len(l.paused) - 1; i >= 0; i-- {
			a.exit(l.machine.children[l.paused[i]])
		}
	}
	for _, n := range restarted {
		a.traceLine(n, "steps restarted by the reload: the list changed length, or its current item changed kind")
	}
	for _, n := range dropped {
		a.traceLine(n, "a pending push, pop or replace was dropped by the reload: the state that asked for it is gone")
	}
	a.settle(p.nt.root, vanished, oldPath)
	if fn := p.nt.def.OnReload; fn != nil {
		a.hook(p.nt.root, fn, cbReload)
	}
}

// settle walks the active states after a reload: a machine that lost its
// active child, or a machine that is new at an active place, re-enters its
// initial; a region new at an active place is entered.
func (a *Agent) settle(n *place, vanished []*place, oldPath string) {
	for n.isMachine() {
		m := &a.ms[n.mid]
		if n.isRegions() {
			a.settleRegions(n, vanished, oldPath)
			return
		}
		if slices.Contains(vanished, n) || len(m.stack) == 0 {
			for len(m.stack) > 0 {
				a.exit(n.children[m.stack[len(m.stack)-1]])
				m.stack = m.stack[:len(m.stack)-1]
			}
			idx := n.initial
			if idx < 0 {
				return // a utility machine without initial decides next tick
			}
			m.stack = append(m.stack, idx)
			a.enter(n.children[idx], lua.LNil)
			a.emitState(TransitionReload, oldPath)
			return
		}
		n = n.children[m.stack[len(m.stack)-1]]
	}
}

// traceLine reports a line of the engine's own about a state, where ai.log
// lines go (Options.OnLog, the inspector, --trace).
func (a *Agent) traceLine(n *place, msg string) {
	if a.h.opts.OnLog == nil && a.followers == 0 {
		return
	}
	a.w.records = append(a.w.records, record{kind: recLog, log: Log{Agent: a.id, Tick: a.ticks, State: n.path, Msg: "luaai: " + msg}})
}

// leftStates are the paused states of a machine that lost its stack in a
// reload (an fsm that became a utility machine), bottom first.
type leftStates struct {
	machine *place
	paused  []int
}
