package explore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/hosttool"
	"github.com/luaai/luaai/luabind/defs"
)

// runner runs input sequences on agents of one behaviour in one host.
type runner struct {
	h       *host.Host
	bs      []*host.Behaviour // one per cast
	kinds   []int             // each agent's behaviour, an index into bs
	agents  int
	release func() // ends stopOn
}

// FailureKind says how a callback failed (Finding.Kind); its value is the
// word luaai explore prints and writes in its JSON.
type FailureKind string

// The kinds of failure.
const (
	KindError   FailureKind = "error"   // a callback raised an error
	KindOverrun FailureKind = "overrun" // a callback ran past its budget
	KindMemory  FailureKind = "memory"  // a callback was stopped by the memory limit
)

// failure is a script error one run met, and the step after which it
// appeared (-1: when the agents were spawned).
type failure struct {
	key      string
	kind     FailureKind
	message  string // file:line: message
	file     string
	line     int
	state    string
	callback string
	agent    int // 0-based
	step     int
	tick     int // for a tick step: at which of its ticks (1-based)
}

type outcome struct {
	failures []failure
	hits     []hosttool.CoverageItem // the parts that ran, with their hits
}

// hostOptions are the host's for a run: the script's folder (and the
// folder the run started in) as roots, coverage on, and an instruction
// budget, so a runaway is stopped at the same place on every machine (the
// time budget is only a safety net, far above it).
func hostOptions(cast []Cast, o *Options) host.Options {
	h := o.Host
	var roots []string
	for _, c := range cast {
		if d := filepath.Dir(c.Script); !slices.Contains(roots, d) {
			roots = append(roots, d)
		}
	}
	if !slices.Contains(roots, ".") {
		roots = append(roots, ".")
	}
	h.Roots = append(roots, h.Roots...)
	h.Coverage = true
	h.BudgetSteps = o.budgetSteps()
	h.Budget = safetyBudget
	h.AgentTickBudget = 0
	h.Workers = 1
	h.Stdout = io.Discard
	// The search reads what went wrong from the agents: the game's own
	// reporting hooks would hear every failure of every sequence tried.
	h.OnError, h.OnLog, h.OnTransition, h.OnDecision, h.OnEventDropped, h.OnReload = nil, nil, nil, nil, nil, nil
	return h
}

// safetyBudget is the time budget of the explorer's callbacks: far above
// what the instruction budget allows on any machine, so what stops a
// runaway is the instruction budget, the same on every machine.
const safetyBudget = 10 * time.Second

// newRunner loads the cast's scripts in a host of its own whose calls
// ctx's end stops (the loads included), whatever they are doing.
func newRunner(ctx context.Context, cast []Cast, o *Options) (*runner, error) {
	h, err := host.New(hostOptions(cast, o))
	if err != nil {
		return nil, err
	}
	r := &runner{h: h}
	for i, c := range cast {
		b, err := h.LoadFileContext(ctx, c.Script)
		if err != nil {
			h.Close()
			return nil, err
		}
		r.bs = append(r.bs, b)
		for range c.Agents {
			r.kinds = append(r.kinds, i)
		}
	}
	r.agents = len(r.kinds)
	r.release = stopOn(h, ctx)
	return r, nil
}

func (r *runner) close() {
	r.release()
	r.h.Close()
}

// stopOn makes ctx's end stop every call of h's Lua machine — the one
// running then at its next instruction, every later one at once — until
// the returned function is called. h has one worker, used from the
// goroutine that calls the returned function.
func stopOn(h *host.Host, ctx context.Context) (release func()) {
	release = func() {}
	_ = hosttool.RunLua(h, func(vm *defs.VM) error {
		release = vm.StopOn(ctx)
		return nil
	})
	return release
}

// run runs seq on freshly spawned agents and removes them afterwards.
// With stopAt, it stops at the first failure whose key is stopAt.
func (r *runner) run(seq []Step, stopAt string) (outcome, error) {
	var out outcome
	defer func() {
		for _, a := range r.h.Agents() {
			_ = r.h.Remove(a)
		}
	}()
	hosttool.ResetCoverage(r.h)
	agents := make([]*host.Agent, r.agents)
	ids := make([]int, r.agents)
	for i := range agents {
		a, err := r.h.Spawn(r.bs[r.kinds[i]], nil)
		if err != nil {
			return out, fmt.Errorf("spawn: %w", err)
		}
		agents[i], ids[i] = a, a.ID()
	}
	found := func(step, tick int) bool {
		for i, a := range agents {
			for _, se := range a.TakeErrors() {
				if se.Suspends && !errors.Is(se, host.ErrMemoryLimit) {
					continue // the overruns before it are the finding
				}
				if stopped(se) {
					continue // the search's end, not the script's fault
				}
				f := failureOf(se, i, step)
				f.tick = tick
				out.failures = append(out.failures, f)
				if f.key == stopAt {
					return true
				}
			}
		}
		return false
	}
	if found(-1, 0) {
		out.hits = r.covered()
		return out, nil
	}
	for i, s := range seq {
		switch s.Op {
		case OpTick:
			for t := range s.N {
				for _, a := range agents {
					if err := a.Tick(s.Dt); err != nil && !errors.Is(err, host.ErrSuspended) {
						return out, fmt.Errorf("tick: %w", err)
					}
				}
				if found(i, t+1) {
					out.hits = r.covered()
					return out, nil
				}
			}
		case OpSend:
			var payload any
			if s.Payload != nil {
				payload = s.Payload.goValue(ids)
			}
			_ = agents[s.Agent%len(agents)].Send(s.Event, payload)
		case OpSet:
			_ = agents[s.Agent%len(agents)].Set(s.Key, s.Value.goValue(ids))
		}
	}
	out.hits = r.covered()
	return out, nil
}

// stopped tells a call that the search's end (its time limit, an
// interrupt) stopped: stopOn's context is the only one its hosts have.
func stopped(se *host.ScriptError) bool {
	var be *host.BudgetError
	return errors.As(se, &be) && be.Cause != nil
}

func failureOf(se *host.ScriptError, agent, step int) failure {
	kind := KindError
	switch {
	case errors.Is(se, host.ErrMemoryLimit):
		kind = KindMemory
	case errors.Is(se, host.ErrBudget):
		kind = KindOverrun
	}
	state := se.State
	if state == "" {
		state = "<root>"
	}
	return failure{
		key:  fmt.Sprintf("%s %s:%d %s %s", kind, se.Script, se.Line, state, se.Callback),
		kind: kind, message: se.Message(), file: se.Script, line: se.Line,
		state: state, callback: string(se.Callback), agent: agent, step: step,
	}
}

// covered lists the parts the run reached, with their hits.
func (r *runner) covered() []hosttool.CoverageItem {
	var out []hosttool.CoverageItem
	hosttool.CoverageHits(r.h, func(it hosttool.CoverageItem) { out = append(out, it) })
	return out
}
