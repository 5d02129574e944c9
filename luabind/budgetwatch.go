package luabind

// The watchdog of a VM's budgets: what it reads each tick (the running
// call's state word, its thread's CPU clock, the heap) and when it stops a
// call (budget.go describes the mechanism).

import "time"

// watch is the watchdog goroutine's loop.
func (b *budget) watch() {
	defer b.wg.Done()
	t := time.NewTicker(b.period)
	defer t.Stop()
	var seen uint64
	var since time.Time
	var heap0 int64  // the heap when the running call was first seen
	var work0 uint64 // the work counted then
	var call cpuCharge
	var tick tickWatch
	idle := 0
	for {
		select {
		case <-b.stop:
			b.running.Store(false)
			return
		case <-t.C:
		}
		b.looks.Add(1)
		// The time of this look, not the tick's: a tick read late would make
		// a call seem older than it is.
		now := time.Now()
		s := b.state.Load()
		// One reading of the thread's CPU clock serves the call and the tick.
		var clk cpuReading
		if b.cpu && s != 0 {
			clk.tid = b.tid.Load()
			clk.cpu, clk.ok = threadCPU(clk.tid)
			clk.cpu += time.Duration(b.extra.Load())
		}
		s = b.watchTick(&tick, s, clk, now)
		if s == 0 {
			seen = 0
			if idle++; idle < budgetIdleTicks {
				continue
			}
			// Exit, unless a call started meanwhile: begin stores the state
			// before it looks at running, this clears running before it looks
			// at the state, so one of the two sees the other.
			b.running.Store(false)
			if b.state.Load() == 0 || !b.running.CompareAndSwap(false, true) {
				return
			}
			idle = 0
			continue
		}
		idle = 0
		if s == 0 || s&budgetFired != 0 {
			continue // between calls of a tick, or stopped, unwinding
		}
		mem := b.mem.Load()
		if s != seen {
			seen, since, work0 = s, now, b.ctx.published.Load()
			call.start(clk)
			if clk.ok {
				b.cpuBase.Store(int64(clk.cpu))
				b.cpuSeen.Store(s)
			}
			if mem > 0 {
				heap0 = b.heap.read()
			}
			continue
		}
		if mem > 0 && b.heap.read()-heap0 > mem {
			b.fire(s, budgetMem)
			continue
		}
		limit := b.call
		if s&budgetLoad != 0 {
			limit = b.load
		}
		if limit > 0 && b.over(&call, clk, limit, now.Sub(since), work0) {
			b.fire(s, 0)
		}
	}
}

// tickWatch is what the watchdog keeps of the agent's tick it watches.
type tickWatch struct {
	seen   uint64 // the tick's number; 0: none
	since  time.Time
	work0  uint64
	charge cpuCharge
}

// watchTick looks at the agent's tick of state word s (the one of the
// running call, or of the last call while the engine works between calls)
// and stops it once past Options.TickBudget; it returns the state word as
// it is after.
func (b *budget) watchTick(t *tickWatch, s uint64, clk cpuReading, now time.Time) uint64 {
	ts := s >> budgetTickShift & budgetTickMask
	switch {
	case ts == 0 || b.tick <= 0:
		t.seen = 0
	case ts != t.seen:
		t.seen, t.since, t.work0 = ts, now, b.ctx.published.Load()
		t.charge.start(clk)
	case b.firedTick.Load() != ts && b.over(&t.charge, clk, b.tick, now.Sub(t.since), t.work0):
		b.firedTick.Store(ts)
		if s&budgetFired == 0 {
			b.fire(s, budgetTick)
		}
		return b.state.Load()
	}
	return s
}

// cpuReading is one look at the CPU clock of the thread running the VM's
// calls (plus the CPU time they made other threads spend); ok is false
// when there was none (wall-time rule).
type cpuReading struct {
	tid int32
	cpu time.Duration
	ok  bool
}

// cpuCharge is the CPU time a call or an agent's tick has been charged
// since the watchdog first saw it. The thread changes only between the
// calls of a tick (each outermost call not under Pin locks the goroutine
// to whichever thread it is on): the time used on earlier threads is
// kept in done, from the last reading of each.
type cpuCharge struct {
	tid        int32
	base, last time.Duration // the first and the last reading on tid
	done       time.Duration
	ok         bool // the clock could be read when it started
}

func (c *cpuCharge) start(r cpuReading) {
	*c = cpuCharge{tid: r.tid, base: r.cpu, last: r.cpu, ok: r.ok}
}

// add takes a new reading into the charge and returns the total; false
// when it cannot be charged by CPU time (wall-time rule).
func (c *cpuCharge) add(r cpuReading) (time.Duration, bool) {
	if !c.ok || !r.ok {
		return 0, false
	}
	if r.tid != c.tid {
		c.done += c.last - c.base
		c.tid, c.base = r.tid, r.cpu
	}
	c.last = r.cpu
	return c.done + c.last - c.base, true
}

// over reports whether a call or tick with the given limit has run past
// it: by CPU time where its thread's clock can be read, and otherwise by
// wall time (elapsed) with minWork done since the watchdog first saw it
// (its work count stood at work0 then).
func (b *budget) over(c *cpuCharge, r cpuReading, limit, elapsed time.Duration, work0 uint64) bool {
	if used, ok := c.add(r); ok {
		return used >= limit
	}
	return elapsed >= limit && b.worked(work0)
}

// worked reports whether the VM has done minWork since its published
// work count stood at work0 (when the watchdog first saw the call or
// tick: work has to go on while the budget runs out, and a runaway's
// does).
func (b *budget) worked(work0 uint64) bool {
	return b.ctx.published.Load() >= work0+minWork
}
