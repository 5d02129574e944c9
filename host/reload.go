package host

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

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
func (b *Behaviour) Reload() error {
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
	proto, err := luabind.Compile(strings.NewReader(src), b.name)
	if err != nil {
		return b.h.reloaded(b, err)
	}
	return b.h.reloaded(b, b.h.swap(b, proto))
}

// Path is the file the behaviour was loaded from, "" for LoadString.
func (b *Behaviour) Path() string { return b.path }

// Files lists the script and every module loaded by require in the host's
// Lua states (what a file watcher should watch).
func (b *Behaviour) Files() []string {
	var out []string
	if b.path != "" {
		out = append(out, b.path)
	}
	return append(out, b.h.workers[0].vm.Modules()...)
}

// QueueReload asks for a reload of b from its file (src == nil) or from new
// source text. It is safe to call from any goroutine: the reload is applied
// at the start of the next Host.Tick (or Host.ApplyReloads), and its result
// goes to Options.OnReload.
func (h *Host) QueueReload(b *Behaviour, src *string) {
	h.reloadQ.mu.Lock()
	h.reloadQ.pending = append(h.reloadQ.pending, reloadRequest{b: b, src: src})
	h.reloadQ.mu.Unlock()
}

// ApplyReloads applies the queued reloads now. Host.Tick calls it first.
func (h *Host) ApplyReloads() {
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
	if h.opts.OnReload != nil {
		h.opts.OnReload(ReloadResult{Behaviour: b.name, Err: err})
	}
	return err
}

// swap loads proto in every worker, and only if all succeed remaps the agents.
func (h *Host) swap(b *Behaviour, proto *lua.FunctionProto) error {
	if h.closed {
		return ErrClosed
	}
	trees := make([]*tree, len(h.workers))
	var restores []func()
	for i, w := range h.workers {
		restores = append(restores, w.vm.ForgetModules())
		def, err := w.vm.LoadProto(proto)
		if err != nil {
			for _, r := range restores {
				r()
			}
			return err
		}
		trees[i] = newTree(w.vm.L, b.name, def)
	}
	b.trees = trees
	for _, t := range trees {
		h.behaviours[t.def] = b
	}
	for _, a := range h.agents {
		if a.b == b {
			a.remap(trees[a.w.index])
		}
	}
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

// remap moves the agent onto a new tree of its behaviour.
func (a *Agent) remap(nt *tree) {
	ot := a.t
	keys := make([]string, 0, len(nt.def.Renamed))
	for k := range nt.def.Renamed {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	// to[old id] is the new node of the same path, or nil.
	to := make([]*node, len(ot.nodes))
	for _, o := range ot.nodes {
		to[o.id] = nt.byPath[rename(o.path, nt.def.Renamed, keys)]
	}
	to[ot.root.id] = nt.root

	nodes := make([]nodeRT, len(nt.nodes))
	ms := make([]machineRT, len(nt.machines))
	for i, m := range nt.machines {
		ms[i] = machineRT{stack: make([]int, 0, len(m.children)), history: -1, blocked: -1}
	}
	mapChild := func(o, n *node, idx int) int {
		if idx < 0 {
			return -1
		}
		c := to[o.children[idx].id]
		if c == nil || c.parent != n {
			return -1
		}
		return c.index
	}
	var vanished []*node // new machines whose active child is gone
	for _, o := range ot.nodes {
		n := to[o.id]
		if n == nil {
			continue
		}
		nodes[n.id] = a.nodes[o.id]
		if !o.isMachine() || !n.isMachine() {
			continue
		}
		om, nm := &a.ms[o.mid], &ms[n.mid]
		for _, idx := range om.stack {
			if j := mapChild(o, n, idx); j >= 0 {
				nm.stack = append(nm.stack, j)
			}
		}
		if len(om.stack) > 0 && mapChild(o, n, om.stack[len(om.stack)-1]) < 0 {
			vanished = append(vanished, n)
		}
		nm.history = mapChild(o, n, om.history)
		nm.decideAcc = om.decideAcc
		if om.req.kind != 0 {
			if om.req.kind == 'o' {
				nm.req = om.req
			} else if j := mapChild(o, n, om.req.target); j >= 0 {
				nm.req = request{kind: om.req.kind, target: j}
			}
		}
	}
	oldPath := a.Path()
	a.t, a.nodes, a.ms = nt, nodes, ms
	a.path = make([]*node, 0, nt.maxDepth+1)
	a.scores = make([]float64, nt.maxKids)

	old := a.w.vm.SetRunner(runner{a})
	defer a.w.vm.SetRunner(old)
	// Walk the active path: a machine that lost its active child, or a
	// machine that is new at an active place, re-enters its initial.
	n := nt.root
	for n.isMachine() {
		m := &a.ms[n.mid]
		lost := false
		for _, v := range vanished {
			lost = lost || v == n
		}
		if lost || len(m.stack) == 0 {
			for len(m.stack) > 0 {
				a.exit(n.children[m.stack[len(m.stack)-1]])
				m.stack = m.stack[:len(m.stack)-1]
			}
			idx := n.initial
			if idx < 0 {
				break // a utility machine without initial decides next tick
			}
			m.stack = append(m.stack, idx)
			a.enter(n.children[idx])
			a.emitReload(oldPath)
			break
		}
		n = n.children[m.stack[len(m.stack)-1]]
	}
	if fn := nt.def.OnReload; fn != nil {
		a.hook(nt.root, fn, cbReload)
	}
}

// emitReload reports, as a Transition of kind "reload", that the agent's
// active state vanished and it was moved.
func (a *Agent) emitReload(from string) {
	if a.h.opts.OnTransition == nil {
		return
	}
	a.w.records = append(a.w.records, record{kind: recTransition, tr: Transition{Agent: a.id, Tick: a.ticks, Kind: "reload", From: from, To: a.Path()}})
}
