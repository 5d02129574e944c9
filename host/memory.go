package host

import (
	"fmt"
	"sort"

	"github.com/luaai/luaai/internal/luatext"
	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind"
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// memoryAccount is the host's side of Options.MemoryLimit: what the agents
// held at the last measure, and how much the heap may grow before the next.
//
// Growth counts from the lowest heap reading since the last measure, not
// from the reading then: a reading includes garbage not yet collected (a
// previous level's, a burst of temporaries), and growth counted from such a
// peak would let a hoard grow unseen until the heap passed it.
type memoryAccount struct {
	limit int64 // 0: off
	used  int64 // bytes the agents held at the last measure
	low   int64 // the lowest heap reading since the last measure
	step  int64 // measure again once the heap is this far above low
	sizer sizer
	sizes []agentSize // scratch
}

type agentSize struct {
	a    *Agent
	size int64 // its context and pending payloads
	mod  int64 // its share of what its script holds outside contexts
}

func (m *memoryAccount) init(limit int64) {
	m.limit = limit
	if limit > 0 {
		m.low, m.step = luabind.HeapBytes(), limit/2
	}
}

// checkMemory runs after each tick: when the heap has grown past the
// trigger, it measures every agent's context, and what each script holds
// outside contexts (its globals, the upvalues of its functions, its
// modules: shared among the script's ticking agents), and suspends the
// largest ticking agents while the ticking agents together hold more than
// the limit. A suspended agent leaves that account (it cannot grow, and
// its bytes must not get innocent agents suspended); what it holds still
// lowers what one callback may allocate, which this then tells the workers.
func (h *Host) checkMemory() {
	m := &h.mem
	if m.limit <= 0 {
		return
	}
	heap := luabind.HeapBytes()
	m.low = min(m.low, heap)
	if heap-m.low < m.step {
		return
	}
	m.sizer = sizer{sharedFns: m.definitionFunctions(h)} // counts each table once across all agents
	m.sizes = m.sizes[:0]
	var used, ticking int64
	for _, a := range h.agents {
		n := m.sizer.size(a.ctx, 0)
		for _, ev := range a.incoming {
			n += m.sizer.size(ev.payload, 0)
		}
		for _, ev := range a.inbox {
			n += m.sizer.size(ev.payload, 0)
		}
		used += n
		if a.suspension == NotSuspended {
			ticking += n
			m.sizes = append(m.sizes, agentSize{a: a, size: n})
		}
	}
	mods := m.measureScripts(h)
	for _, n := range mods {
		used += n
	}
	share := map[*Behaviour]int64{}
	for _, s := range m.sizes {
		share[s.a.b]++
	}
	for i := range m.sizes {
		s := &m.sizes[i]
		s.mod = (mods[s.a.b] + share[s.a.b] - 1) / share[s.a.b]
		ticking += s.mod
	}
	if ticking > m.limit {
		sort.SliceStable(m.sizes, func(i, j int) bool {
			return m.sizes[i].size+m.sizes[i].mod > m.sizes[j].size+m.sizes[j].mod
		})
		over := ticking - m.limit
		for _, s := range m.sizes {
			if over <= 0 {
				break
			}
			s.a.overMemory(s.size, s.mod, share[s.a.b], m.limit)
			over -= s.size + s.mod
		}
	}
	if used > m.limit {
		h.suspendHoarders(used)
	}
	m.used = used
	left := m.limit - used
	if left < m.limit/16 {
		left = m.limit / 16
	}
	for _, w := range h.workers {
		w.vm.SetMemoryAllowance(left, m.limit)
	}
	m.low, m.step = luabind.HeapBytes(), left/2
	clear(m.sizes)
	m.sizer = sizer{}
}

// measureScripts is what each script holds outside contexts (its globals,
// the upvalues of its functions, its modules), measured after the contexts
// (a table a context holds is the agent's), to be shared among the
// script's ticking agents.
func (m *memoryAccount) measureScripts(h *Host) map[*Behaviour]int64 {
	m.sizer.funcs = true
	mods := map[*Behaviour]int64{}
	for _, a := range h.agents {
		if _, ok := mods[a.b]; ok {
			continue
		}
		var n int64
		for _, t := range a.b.layouts {
			if env := t.def.Env(); env != nil {
				n += m.sizer.size(env, 0)
			}
			defs.EachFunction(t.def, func(fn *lua.LFunction) { n += m.sizer.size(fn, 0) })
		}
		mods[a.b] = n
	}
	return mods
}

// suspendHoarders runs when the agents hold more than the limit in all,
// suspended ones included: a suspended agent keeps what it holds, so
// suspending the largest ticking agents alone lets a script with many
// hoarding agents hold the limit once for each. The scripts with agents
// suspended for memory are what holds it: their ticking agents are
// suspended too; other scripts' agents never are.
func (h *Host) suspendHoarders(used int64) {
	hoarders := map[*Behaviour]bool{}
	for _, a := range h.agents {
		if a.suspension == SuspendedByMemory {
			hoarders[a.b] = true
		}
	}
	for _, s := range h.mem.sizes {
		if hoarders[s.a.b] && s.a.suspension == NotSuspended {
			err := fmt.Errorf("%w: the host's agents hold about %s, more than its %s limit, and other agents of this script were suspended for memory (the agent's context holds about %s); the agent is suspended",
				scripterr.ErrMemoryLimit, luatext.FormatBytes(used), luatext.FormatBytes(h.mem.limit), luatext.FormatBytes(s.size))
			s.a.suspendForMemory(err)
		}
	}
}

// definitionFunctions are the functions of every behaviour's definition,
// which the measure of contexts leaves to the measure of their script: a
// context holding one does not hold its upvalues. Closures made while the
// game runs (and coroutine.wrap functions) are followed from a context.
func (m *memoryAccount) definitionFunctions(h *Host) map[*lua.LFunction]struct{} {
	fns := map[*lua.LFunction]struct{}{}
	done := map[*Behaviour]bool{}
	for _, a := range h.agents {
		if done[a.b] {
			continue
		}
		done[a.b] = true
		for _, t := range a.b.layouts {
			defs.EachFunction(t.def, func(fn *lua.LFunction) { fns[fn] = struct{}{} })
		}
	}
	return fns
}

// overMemory suspends an agent whose context holds too much, reporting it
// like a failed callback ("memory") at the definition of its active state.
func (a *Agent) overMemory(size, mod, sharing, limit int64) {
	held := "the agent's context holds about " + luatext.FormatBytes(size)
	if mod >= size {
		held = fmt.Sprintf("the script's own data (globals, upvalues, modules) holds about %s for each of its %d agents", luatext.FormatBytes(mod), sharing)
	}
	a.suspendForMemory(fmt.Errorf("%w: %s, and the host's agents together more than its %s limit; the agent is suspended",
		scripterr.ErrMemoryLimit, held, luatext.FormatBytes(limit)))
}

// suspendForMemory reports err like a failed callback ("memory") at the
// definition of the agent's active state, and suspends it.
func (a *Agent) suspendForMemory(err error) {
	a.report(a.deepest(), CallbackMemory, err)
	a.suspension = SuspendedByMemory // whatever the fault policy made of the report
	a.errs[len(a.errs)-1].Suspends = true
	a.errs[len(a.errs)-1].Suspension = SuspendedByMemory
}

// MemoryUsed is what the agents' contexts held at the host's last measure
// of them, in bytes (an estimate; see Options.MemoryLimit). 0 with no limit.
func (h *Host) MemoryUsed() int64 { return h.mem.used }
