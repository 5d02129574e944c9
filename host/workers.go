package host

// The host's tick: its workers ticking their shards in parallel (and
// fairly under a frame deadline), then the hooks of Options called for
// what they recorded, in agent order, on the game's goroutine.

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// Tick ticks every agent by dt seconds: each worker its shard, in parallel,
// each shard in spawn order. It returns when all are done, after the hooks
// have run.
//
// Agents that scripts spawn during the tick (ai.spawn) are created after
// every worker is done, in the order of the spawning agent's id and then
// of its calls, so ids and traces do not depend on the number of workers.
func (h *Host) Tick(dt float64) error {
	return h.TickContext(context.Background(), dt)
}

// TickContext is Tick stopped by ctx: when ctx ends, the callback running
// on each worker stops as a runaway does (reported with an error wrapping
// context.Cause(ctx)), the agents not yet ticked are not ticked this time,
// the hooks run for what happened, and the error wraps the cause. A game
// shutting down, or with a frame deadline, cancels it.
//
// A frame deadline ticks what fits, fairly across the whole host: the next
// tick starts with the agents a cut left out, in id order, then goes round
// to the rest; and each of them gets the time it missed added to the dt
// of its next tick, so its clock, timers and waits stay true. With several
// workers, no worker goes on to agents that are owed fewer ticks while
// another still has agents owed more: a worker that gets less CPU time (or
// whose agents call slow Go functions) holds the others back rather than
// falling behind them, so over any run of ticks two agents of interval 1
// differ in how often they were ticked by at most one. Ticks without a cut
// pay nothing for this; after a cut, until every agent has caught up, each
// tick makes a few extra passes over the agents. A snapshot keeps the owed
// time, not the order.
func (h *Host) TickContext(ctx context.Context, dt float64) error {
	if err := h.usable(); err != nil {
		return err
	}
	if h.dispatch1 {
		// From a hook of Options: the tick that called it is not over.
		return fmt.Errorf("tick from a hook of Options: %w", ErrReentrant)
	}
	if err := checkDt(dt); err != nil {
		return err
	}
	if len(h.observers) > 0 {
		h.observeBefore()
	}
	if h.paused {
		if h.steps == 0 {
			h.observeAfter(false)
			return nil // paused is a state, not a failure: see Pause
		}
		h.steps--
	}
	h.tickNo++
	release := h.stopOn(ctx)
	h.ApplyReloads()
	var t0 time.Time
	if h.opts.Profile {
		t0 = time.Now()
	}
	var f *fairFrame
	if h.fair {
		f = newFairFrame(len(h.workers))
	}
	h.eachWorker(func(w *worker) { w.tick(dt, f) })
	h.settleFair(f != nil)
	if h.opts.Profile {
		h.profTime += time.Since(t0)
		h.profTicks++
	}
	release()
	h.checkMemory()
	h.dispatch()
	h.observeAfter(true)
	if ctx != nil && ctx.Err() != nil {
		return fmt.Errorf("tick: %w", context.Cause(ctx))
	}
	return nil
}

// eachWorker runs fn for every worker, in parallel when there are several,
// then creates the agents scripts spawned meanwhile.
func (h *Host) eachWorker(fn func(*worker)) {
	h.running = true
	for _, w := range h.workers {
		w.busy = true
	}
	defer func() {
		for _, w := range h.workers {
			w.busy = false
			w.vm.Idle()
		}
		h.running = false
		h.applySpawns()
		h.deliverMessages()
	}()
	if len(h.workers) == 1 {
		pinned(h.workers[0], fn)
		return
	}
	var wg sync.WaitGroup
	for _, w := range h.workers[1:] {
		wg.Add(1)
		go func(w *worker) {
			defer wg.Done()
			w.run(func(w *worker) { pinned(w, fn) })
		}(w)
	}
	h.workers[0].run(func(w *worker) { pinned(w, fn) })
	wg.Wait()
}

// pinned runs fn for w with the goroutine locked to its OS thread
// (luabind.VM.Pin): the worker's calls share one look-up of the thread
// whose CPU time their budgets are charged.
func pinned(w *worker, fn func(*worker)) {
	w.vm.Pin()
	defer w.vm.Unpin()
	fn(w)
}

// tick ticks the worker's agents whose interval makes them due on this
// host tick, in spawn order. The agents that a cut (TickContext) leaves
// out, and those whose interval skips this host tick, owe the time they
// missed, added to the dt of their next tick, so their clocks stay true.
//
// After a cut, the host ticks fairly (tickFair) until every agent has
// caught up: the agents a cut left out go first, across all the workers.
func (w *worker) tick(dt float64, f *fairFrame) {
	w.cut, w.rotated = false, false
	if f != nil {
		w.tickFair(dt, f)
		return
	}
	done, tn := w.h.tickDone, w.h.tickNo
	w.ahead.start(w.agents, tn)
	for k, a := range w.agents {
		if done != nil {
			select {
			case <-done:
				// TickContext's ctx ended: the rest wait for the next
				// tick, which starts with them (lag 1; every other lag is
				// 0 while the host is not fair).
				for _, a := range w.agents[k:] {
					if a.suspension == NotSuspended {
						a.owed += dt
						if a.due(tn) {
							a.lag = 1
						}
					}
				}
				w.cut = true
				return
			default:
			}
		}
		if a.suspension != NotSuspended {
			continue
		}
		if !a.due(tn) {
			a.owed += dt
			continue
		}
		w.ahead.warm(k)
		w.tickAgent(a, dt)
	}
}

// tickAgent ticks a by dt plus what it is owed.
func (w *worker) tickAgent(a *Agent, dt float64) {
	if a.owed > 0 {
		d := dt + a.owed
		a.owed = 0
		if d != w.owedDt || w.owedV == nil {
			// Agents of one interval are owed the same time: box it once
			// for them all.
			w.owedDt, w.owedV = d, lua.LNumber(d)
		}
		_ = a.tick(d, w.owedV)
		return
	}
	if dt != w.dt || w.dtV == nil {
		w.dt, w.dtV = dt, lua.LNumber(dt) // boxed once for every agent
	}
	_ = a.tick(dt, w.dtV) // dt is checked; an agent in its own tick cannot be here
}

// fairFrame coordinates the workers in a fair tick: every worker ticks the
// agents with the highest lag before any worker goes on to the next lag,
// so a worker that gets less CPU time (or runs slow Go functions) holds
// the others back instead of leaving its agents behind theirs.
type fairFrame struct {
	top  atomic.Int32 // the highest lag of any agent, after phase 0
	bars []fairBarrier
}

type fairBarrier struct {
	left atomic.Int32
	ch   chan struct{}
}

// maxLagClasses bounds the lag classes a fair tick goes through (and so
// its barriers); agents owed more are ticked with the highest class.
const maxLagClasses = 16

func newFairFrame(workers int) *fairFrame {
	f := &fairFrame{bars: make([]fairBarrier, maxLagClasses+1)}
	for i := range f.bars {
		f.bars[i].left.Store(int32(workers))
		f.bars[i].ch = make(chan struct{})
	}
	return f
}

// wait is barrier i: false when done (the cut) came first.
func (f *fairFrame) wait(i int, done <-chan struct{}) bool {
	b := &f.bars[i]
	if b.left.Add(-1) == 0 {
		close(b.ch)
		return true
	}
	select {
	case <-b.ch:
		return true
	case <-done:
		return false
	}
}

// tickFair is a tick while some agents are owed ticks others got (a cut
// left them out): each agent's lag counts them. In phase 0 every due
// agent's lag goes up by one; then the workers tick the agents of the
// highest lag, wait for each other, the next lag, and so on down to 1,
// each agent at most once. A cut stops it anywhere: the agents of interval
// 1 then differ by at most one lag, so by at most one tick, whichever
// worker got how much CPU. At the end, what every agent of interval 1 is
// owed alike is taken off (lagFloor), and once no agent is owed more than
// another the host leaves the fair mode.
func (w *worker) tickFair(dt float64, f *fairFrame) {
	h := w.h
	done, tn, floor := h.tickDone, h.tickNo, h.lagFloor
	w.rotated = true // records are sorted by agent before the hooks
	var top int32
	for _, a := range w.agents {
		if a.suspension != NotSuspended {
			continue
		}
		if a.interval <= 1 {
			a.lag = max(a.lag-floor, 0)
		}
		if a.due(tn) {
			a.lag++
		}
		top = max(top, a.lag)
	}
	for {
		old := f.top.Load()
		if old >= top || f.top.CompareAndSwap(old, top) {
			break
		}
	}
	ok := f.wait(0, done)
	if ok {
		top = min(f.top.Load(), maxLagClasses)
	classes:
		for c := top; c >= 1; c-- {
			for _, a := range w.agents {
				if a.frameAt == tn || a.suspension != NotSuspended || (a.lag != c && (c < top || a.lag < c)) {
					continue
				}
				if done != nil {
					select {
					case <-done:
						ok = false
						break classes
					default:
					}
				}
				a.frameAt = tn
				a.lag--
				w.tickAgent(a, dt)
			}
			if c > 1 && !f.wait(int(top-c+1), done) {
				ok = false
				break
			}
		}
	}
	w.cut = !ok
	w.has1, w.lagMin1, w.lagMax1, w.lagMaxK = false, 0, 0, 0
	for _, a := range w.agents {
		if a.suspension != NotSuspended {
			continue
		}
		if a.frameAt != tn {
			a.owed += dt
		}
		if a.interval <= 1 {
			if !w.has1 {
				w.has1, w.lagMin1, w.lagMax1 = true, a.lag, a.lag
			}
			w.lagMin1, w.lagMax1 = min(w.lagMin1, a.lag), max(w.lagMax1, a.lag)
		} else {
			w.lagMaxK = max(w.lagMaxK, a.lag)
		}
	}
}

// settleFair, after the workers ticked, decides whether the next tick is
// fair (workers.go: tickFair) and what it takes off every lag.
func (h *Host) settleFair(fair bool) {
	cut := false
	for _, w := range h.workers {
		cut = cut || w.cut
	}
	if !fair {
		if cut {
			h.fair, h.lagFloor = true, 0
		}
		return
	}
	has1, min1, max1, maxK := false, int32(0), int32(0), int32(0)
	for _, w := range h.workers {
		maxK = max(maxK, w.lagMaxK)
		if !w.has1 {
			continue
		}
		if !has1 {
			has1, min1, max1 = true, w.lagMin1, w.lagMax1
		}
		min1, max1 = min(min1, w.lagMin1), max(max1, w.lagMax1)
	}
	if min1 == max1 && maxK == 0 {
		// Every agent is owed as much as every other: plain ticks again.
		for _, a := range h.agents {
			a.lag = 0
		}
		h.fair, h.lagFloor = false, 0
		return
	}
	h.lagFloor = min1
}

// dispatch calls the hooks for what the workers recorded, ordered by agent
// id (each agent's records are already in tick order).
//
// A hook may call back into the host (Spawn, Remove, Reload, Agent.Tick…):
// what that records is delivered after the current batch, by this same
// loop, never by a nested one.
func (h *Host) dispatch() {
	if h.dispatch1 {
		return
	}
	h.dispatch1 = true
	defer func() { h.dispatch1 = false }()
	h.sendRemote()
	for !h.closed && h.deliver() {
	}
}

// deliver hands the records the workers hold to the hooks; false when
// there were none.
func (h *Host) deliver() bool {
	all := h.merged[:0]
	for _, w := range h.workers {
		all = append(all, w.records...)
		clear(w.records)
		w.records = w.records[:0]
	}
	h.merged = nil // a hook that calls back in must not share this batch
	defer func() {
		clear(all)
		h.merged = all[:0]
	}()
	if len(all) == 0 {
		return false
	}
	if len(h.workers) > 1 || h.workers[0].rotated {
		sort.SliceStable(all, func(i, j int) bool { return all[i].agent() < all[j].agent() })
	}
	for i := range all {
		if h.closed {
			break
		}
		r := &all[i]
		switch r.kind {
		case recTransition:
			for _, ob := range h.observers {
				if ob.o.transition != nil {
					ob.o.transition(r.tr)
				}
			}
			if h.opts.OnTransition != nil {
				h.opts.OnTransition(r.tr)
			}
		case recError:
			for _, ob := range h.observers {
				if ob.o.err != nil {
					ob.o.err(r.err)
				}
			}
			if h.opts.OnError == nil {
				break
			}
			if h.errCounts == nil {
				h.errCounts = map[errKey]int{}
			}
			k := errKey{r.err.Script, r.err.Line, r.err.Callback, r.err.Suspends}
			h.errCounts[k]++
			r.err.Count = h.errCounts[k]
			if h.opts.ReportAllErrors || r.err.Suspends || isPowerOf10(r.err.Count) {
				h.opts.OnError(r.err)
			}
		case recLog:
			for _, ob := range h.observers {
				if ob.o.log != nil {
					ob.o.log(r.log)
				}
			}
			if h.opts.OnLog != nil {
				h.opts.OnLog(r.log)
			}
		case recDecision:
			h.opts.OnDecision(r.dec)
		case recDropped:
			h.opts.OnEventDropped(r.drop)
		}
	}
	return true
}

func isPowerOf10(n int) bool {
	for n >= 10 && n%10 == 0 {
		n /= 10
	}
	return n == 1
}

// ErrorCounts returns how often each failing (script, line, callback) has
// failed in this host so far, as reported to OnError ("file:line callback" →
// count; suspensions apart, as "file:line callback (suspension)"). Only
// counted while OnError is set.
func (h *Host) ErrorCounts() map[string]int {
	out := map[string]int{}
	for k, n := range h.errCounts {
		key := fmt.Sprintf("%s:%d %s", k.script, k.line, k.callback)
		if k.suspends {
			key += " (suspension)"
		}
		out[key] = n
	}
	return out
}
