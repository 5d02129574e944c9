package host

// The host's tick: its workers ticking their shards in parallel (and
// fairly under a frame deadline), then the hooks of Options called for
// what they recorded, in agent order, on the game's goroutine.

import (
	"context"
	"fmt"
	"sort"
	"sync"
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
// A frame deadline ticks what fits, fairly: the next tick starts with the
// agents a cut left out (then goes round to the rest), and each of them
// gets the time it missed added to the dt of its next tick, so its clock,
// timers and waits stay true. A snapshot keeps that owed time.
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
	h.eachWorker(func(w *worker) { w.tick(dt) })
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

// tick ticks the worker's agents in spawn order, from where the last
// tick cut short by TickContext stopped (then round to it). The agents a
// cut leaves out, and those whose interval skips this host tick, owe the
// time they missed, added to the dt of their next tick, so their clocks
// stay true.
func (w *worker) tick(dt float64) {
	dtv := lua.LValue(lua.LNumber(dt)) // boxed once for every agent
	done, tn := w.h.tickDone, w.h.tickNo
	owedDt, owedV := -1.0, lua.LValue(lua.LNil) // the last owed dt, boxed
	n := len(w.agents)
	start := w.next
	if start >= n {
		start = 0
	}
	w.next, w.rotated = 0, start != 0
	for k := range n {
		i := start + k
		if i >= n {
			i -= n
		}
		if done != nil {
			select {
			case <-done:
				// TickContext's ctx ended: the rest wait for the next tick,
				// which starts with them.
				for j := k; j < n; j++ {
					a := w.agents[(start+j)%n]
					if a.suspension == NotSuspended {
						a.owed += dt
					}
				}
				w.next = i
				return
			default:
			}
		}
		a := w.agents[i]
		if a.suspension != NotSuspended {
			continue
		}
		if !a.due(tn) {
			a.owed += dt
			continue
		}
		if a.owed > 0 {
			d := dt + a.owed
			a.owed = 0
			if d != owedDt {
				// Agents of one interval are owed the same time: box it
				// once for them all.
				owedDt, owedV = d, lua.LNumber(d)
			}
			_ = a.tick(d, owedV)
			continue
		}
		_ = a.tick(dt, dtv) // dt is checked; an agent in its own tick cannot be here
	}
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
				if ob.o.Transition != nil {
					ob.o.Transition(r.tr)
				}
			}
			if h.opts.OnTransition != nil {
				h.opts.OnTransition(r.tr)
			}
		case recError:
			for _, ob := range h.observers {
				if ob.o.Error != nil {
					ob.o.Error(r.err)
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
				if ob.o.Log != nil {
					ob.o.Log(r.log)
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
