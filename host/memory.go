package host

import (
	"fmt"
	"sort"

	"github.com/luaai/luaai/luabind"
)

// memoryAccount is the host's side of Options.MemoryLimit: what the agents'
// contexts held at the last measure, and the heap size at which to measure
// again.
type memoryAccount struct {
	limit   int64 // 0: off
	used    int64 // bytes the contexts held at the last measure
	trigger int64 // measure again once the heap is this large
	sizer   sizer
	sizes   []agentSize // scratch
}

type agentSize struct {
	a    *Agent
	size int64
}

func (m *memoryAccount) init(limit int64) {
	m.limit = limit
	if limit > 0 {
		m.trigger = luabind.HeapBytes() + limit/2
	}
}

// checkMemory runs after each tick: when the heap has grown past the
// trigger, it measures every agent's context and suspends the largest
// ticking agents while the ticking agents together hold more than the
// limit. A suspended agent leaves that account (it cannot grow, and its
// bytes must not get innocent agents suspended); what it holds still
// lowers what one callback may allocate, which this then tells the workers.
func (h *Host) checkMemory() {
	m := &h.mem
	if m.limit <= 0 {
		return
	}
	heap := luabind.HeapBytes()
	if heap < m.trigger {
		return
	}
	m.sizer = sizer{} // counts each table once across all agents
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
		if !a.suspended {
			ticking += n
			m.sizes = append(m.sizes, agentSize{a, n})
		}
	}
	if ticking > m.limit {
		sort.SliceStable(m.sizes, func(i, j int) bool { return m.sizes[i].size > m.sizes[j].size })
		over := ticking - m.limit
		for _, s := range m.sizes {
			if over <= 0 {
				break
			}
			s.a.overMemory(s.size, m.limit)
			over -= s.size
		}
	}
	m.used = used
	left := m.limit - used
	if left < m.limit/16 {
		left = m.limit / 16
	}
	for _, w := range h.workers {
		w.vm.SetMemoryAllowance(left, m.limit)
	}
	m.trigger = luabind.HeapBytes() + left/2
	clear(m.sizes)
	m.sizer = sizer{}
}

// overMemory suspends an agent whose context holds too much, reporting it
// like a failed callback ("memory") at the definition of its active state.
func (a *Agent) overMemory(size, limit int64) {
	err := fmt.Errorf("%w: the agent's context holds about %s, and the host's agents together more than its %s limit; the agent is suspended",
		luabind.ErrMemoryLimit, luabind.FormatBytes(size), luabind.FormatBytes(limit))
	a.report(a.deepest(), CallbackMemory, err)
	if !a.suspended { // the Suspend fault policy may have suspended it for the report
		a.suspend(SuspendedByMemory)
	}
	a.suspension = SuspendedByMemory
	a.errs[len(a.errs)-1].Suspends = true
}

// MemoryUsed is what the agents' contexts held at the host's last measure
// of them, in bytes (an estimate; see Options.MemoryLimit). 0 with no limit.
func (h *Host) MemoryUsed() int64 { return h.mem.used }
