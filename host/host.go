package host

import (
	"context"
	"fmt"
	"iter"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"weak"

	"github.com/luaai/luaai/luabind"
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// Host runs behaviours: it owns the workers (each a Lua state), the
// behaviours loaded into them and the agents spawned from them.
//
// # Concurrency
//
// A Host and everything it hands out (Behaviour, Agent) are used from one
// goroutine at a time: the game loop's. Host.Tick fans out to the workers
// and returns when all are done; the hooks in Options run on the calling
// goroutine afterwards.
type Host struct {
	opts    Options
	workers []*worker
	agents  []*Agent
	// loose: agents ai.spawn made outside Host.Tick (the script that made
	// them ticks them, as luaai test does), by id, for ai.send_to; weak, so
	// an agent no script holds is collected.
	loose     map[int]weak.Pointer[Agent]
	spawned   int
	closed    bool
	tickDone  <-chan struct{} // ctx.Done() of TickContext, Load…Context, Reload…Context: the workers read it
	running   bool            // the workers are running scripts (Tick, reload)
	dispatch1 bool            // dispatch is delivering records
	merged    []record        // scratch for dispatch
	spawns    []*pendingSpawn // scratch for applySpawns
	mem       memoryAccount
	boundBy   map[uintptr]int // with several workers: which agent binds each Go value
	reloadQ   reloads
	errCounts map[errKey]int
	observers []*observation // attached by hosttool.Observe
	profTicks int            // Options.Profile: ticks run
	profTime  time.Duration  // and the time they took
	srcLines  sourceLines    // script lines for error hints
	paused    bool           // Pause: Tick ticks nothing
	steps     int            // Step: ticks to run while paused
	refusals  refusals       // reads of other agents refused while the workers ran
	tickNo    int            // host ticks run (TickNumber); the tick running has this number
	remoteQ   []pendingMsg   // ai.send_to to other hosts, for Options.OnSendElsewhere
	roster    int            // counts agents made, restored, imported, removed, exported
	saveBuf   []byte         // the blocking binary save's document, reused by the next one
	saveKept  *saveCopies    // the last save's copies, reused by the next one once unread
	// attaching is the restored agent RestoreOptions.Attach is given, and
	// attachKeys the keys it was saved with synced (Agent.Sync fills the
	// restored tables there).
	attaching  *Agent
	attachKeys []string
	// fair: a frame deadline cut a tick and some agents are owed ticks
	// others got (Agent.lag): ticks go by lag, across the workers
	// (workers.go). lagFloor is what every agent of interval 1 is owed
	// alike, taken off at the next tick.
	fair     bool
	lagFloor int32
}

type errKey struct {
	script   string
	line     int
	callback Callback
	// suspends: suspensions are counted apart from the failures that led to
	// them (an overrun suspension is reported at the line that ran away).
	suspends bool
}

// The default budgets of Options.
const (
	DefaultBudget     = 50 * time.Millisecond
	DefaultLoadBudget = 2 * time.Second
	// DefaultAgentTickBudget is Options.AgentTickBudget's default with the
	// default Budget: four times it.
	DefaultAgentTickBudget = 4 * DefaultBudget
	// DefaultMemoryLimit is Options.MemoryLimit's default: 256 MiB.
	DefaultMemoryLimit = 256 << 20
)

// worker owns one Lua state and the agents whose contexts live in it. Only
// the goroutine ticking it touches them.
type worker struct {
	h        *Host
	index    int
	vm       *defs.VM
	agents   []*Agent
	records  []record        // hook calls waiting for dispatch
	spawnQ   []*pendingSpawn // ai.spawn calls made while busy
	msgQ     []pendingMsg    // ai.send_to calls made while busy
	busy     bool            // inside Host.Tick or a reload: no dispatch, spawns are queued
	spawnSeq int             // spawns queued with no running agent
	nums     numberBlock     // Lua numbers for Agent.Sync
	cells    func() *Agent   // the next zero agent of a block (agentslab.go)
	rotated  bool            // this tick did not tick the agents in id order
	// cut: TickContext's context ended before this worker ticked every
	// agent it was to tick. lagMin1, lagMax1 and lagMaxK: the extremes of
	// its agents' lags after a fair tick (interval 1, and above 1), for
	// the next one (workers.go).
	cut              bool
	dt, owedDt       float64    // the last dt and owed dt boxed, in dtV and owedV
	dtV, owedV       lua.LValue // (agents mostly share them)
	lagMin1, lagMax1 int32
	lagMaxK          int32
	has1             bool
	prof             *profiler // Options.Profile
	cov              *coverage // Options.Coverage
	// thread names the goroutine running the worker's scripts while it
	// runs them with other workers (threadID), 0 otherwise.
	thread atomic.Uint64
	ahead  lookahead // the prefetches of a tick (warm.go)
}

type recordKind uint8

const (
	recTransition recordKind = iota
	recError
	recLog
	recDecision
	recDropped
)

type record struct {
	kind recordKind
	tr   Transition
	err  *ScriptError
	log  Log
	dec  Decision
	drop DroppedEvent
}

func (r *record) agent() int {
	switch r.kind {
	case recError:
		return r.err.Agent
	case recLog:
		return r.log.Agent
	case recDecision:
		return r.dec.Agent
	case recDropped:
		return r.drop.Agent
	}
	return r.tr.Agent
}

// New creates a host. The zero Options work.
func New(opts Options) (*Host, error) {
	if err := checkOptions(opts); err != nil {
		return nil, err
	}
	modules, err := funcModules(opts.Modules, opts.Funcs)
	if err != nil {
		return nil, err
	}
	if opts.MaxStackDepth == 0 {
		opts.MaxStackDepth = 32
	}
	if opts.MaxErrors == 0 {
		opts.MaxErrors = 256
	}
	if opts.MaxOverruns == 0 {
		opts.MaxOverruns = 3
	}
	if opts.Workers == 0 {
		opts.Workers = 1
	}
	if opts.MaxMessagesPerTick == 0 {
		opts.MaxMessagesPerTick = DefaultMaxMessagesPerTick
	}
	switch {
	case opts.MemoryLimit == 0:
		opts.MemoryLimit = DefaultMemoryLimit
	case opts.MemoryLimit < 0:
		opts.MemoryLimit = 0 // off
	}
	budget := func(d, def time.Duration) time.Duration {
		switch {
		case d == 0:
			return def
		case d < 0:
			return 0 // off
		}
		return d
	}
	h := &Host{opts: opts}
	cache := luabind.NewProtoCache()
	for i := 0; i < opts.Workers; i++ {
		w := &worker{h: h, index: i}
		w.vm = defs.NewVM(luabind.Options{
			Roots: opts.Roots, Cache: cache, Stdout: opts.Stdout,
			Seed: opts.Seed, Now: opts.Now, MaxString: opts.MaxString,
			Budget:      budget(opts.Budget, DefaultBudget),
			TickBudget:  tickBudget(opts),
			LoadBudget:  budget(opts.LoadBudget, DefaultLoadBudget),
			MemoryLimit: opts.MemoryLimit,
			BudgetSteps: opts.BudgetSteps,
			Modules:     modules,
		})
		w.vm.SetSpawner(luaSpawner{w})
		if opts.Profile {
			w.startProfile()
		}
		if opts.Coverage {
			w.cov = &coverage{hits: map[covKey]int{}, layouts: map[*defs.State]*layout{}}
		}
		w.vm.L.G.Registry.RawSetString(workerKey, &lua.LUserData{Value: w})
		h.workers = append(h.workers, w)
	}
	h.mem.init(opts.MemoryLimit)
	return h, nil
}

// checkOptions refuses the options New cannot make sense of.
func checkOptions(opts Options) error {
	switch {
	case opts.MaxStackDepth < 0:
		return fmt.Errorf("Options.MaxStackDepth %d is negative", opts.MaxStackDepth)
	case opts.MaxErrors < 0:
		return fmt.Errorf("Options.MaxErrors %d is negative", opts.MaxErrors)
	case opts.MaxString < 0:
		return fmt.Errorf("Options.MaxString %d is negative", opts.MaxString)
	case opts.BudgetSteps < 0:
		return fmt.Errorf("Options.BudgetSteps %d is negative", opts.BudgetSteps)
	case opts.Workers < 0:
		return fmt.Errorf("Options.Workers %d is negative", opts.Workers)
	case opts.MaxMessagesPerTick < 0:
		return fmt.Errorf("Options.MaxMessagesPerTick %d is negative", opts.MaxMessagesPerTick)
	}
	for name := range opts.Modules {
		if name == "" || name == "luaai" {
			return fmt.Errorf("Options.Modules: a module may not be named %q", name)
		}
	}
	return nil
}

// tickBudget is Options.AgentTickBudget with its default: four times the
// callback budget (off when that is off).
func tickBudget(opts Options) time.Duration {
	switch {
	case opts.AgentTickBudget < 0:
		return 0
	case opts.AgentTickBudget > 0:
		return opts.AgentTickBudget
	case opts.Budget < 0:
		return 0
	case opts.Budget == 0:
		return DefaultAgentTickBudget
	}
	return 4 * opts.Budget
}

// Close releases the Lua states. The host and its agents cannot be used
// after. Called from a script while the workers run, it does nothing.
func (h *Host) Close() {
	if h.closed || h.running {
		return
	}
	h.closed = true
	h.saveBuf = nil // the last binary save's buffer, kept for the next one
	h.saveKept = nil
	for _, w := range h.workers {
		w.vm.Close()
	}
}

// Len is the number of agents.
func (h *Host) Len() int { return len(h.agents) }

// Workers is the number of workers.
func (h *Host) Workers() int { return len(h.workers) }

// runLua is hosttool.RunLua: fn gets the Lua side of h's first worker.
func (h *Host) runLua(fn func(vm *defs.VM) error) error {
	switch {
	case h.running:
		return ErrReentrant
	case h.closed:
		return errHostClosed
	}
	return fn(h.workers[0].vm)
}

// LoadFile loads and validates a behaviour script. Errors name file:line; a
// script with any problem is refused whole (the error is an ErrorList).
func (h *Host) LoadFile(path string) (*Behaviour, error) {
	return h.LoadFileContext(context.Background(), path)
}

// LoadFileContext is LoadFile stopped by ctx: when ctx ends while the
// script runs, it stops as a runaway does and the load fails with an error
// wrapping context.Cause(ctx).
func (h *Host) LoadFileContext(ctx context.Context, path string) (*Behaviour, error) {
	if err := h.usable(); err != nil {
		return nil, err
	}
	proto, err := luabind.CompileFile(path)
	if err != nil {
		return nil, err
	}
	defer h.stopOn(ctx)()
	b, err := h.load(proto, filepath.ToSlash(path))
	if err != nil {
		return nil, err
	}
	b.path = path
	return b, nil
}

// LoadString loads a behaviour from source text; name is used in error
// messages as the file name. Modules it requires resolve against Roots.
func (h *Host) LoadString(name, src string) (*Behaviour, error) {
	return h.LoadStringContext(context.Background(), name, src)
}

// LoadStringContext is LoadString stopped by ctx, as LoadFileContext is.
func (h *Host) LoadStringContext(ctx context.Context, name, src string) (*Behaviour, error) {
	if err := h.usable(); err != nil {
		return nil, err
	}
	proto, err := luabind.Compile(strings.NewReader(src), name)
	if err != nil {
		return nil, err
	}
	defer h.stopOn(ctx)()
	return h.load(proto, name)
}

// stopOn makes ctx's end stop the callbacks of every worker until the
// returned function is called (defs.VM.StopOn).
func (h *Host) stopOn(ctx context.Context) (release func()) {
	if ctx == nil || ctx.Done() == nil {
		return func() {}
	}
	releases := make([]func(), len(h.workers))
	for i, w := range h.workers {
		releases[i] = w.vm.StopOn(ctx)
	}
	h.tickDone = ctx.Done()
	return func() {
		h.tickDone = nil
		for _, r := range releases {
			r()
		}
	}
}

// load runs a compiled behaviour in every worker's Lua state.
func (h *Host) load(proto *lua.FunctionProto, name string) (*Behaviour, error) {
	b := &Behaviour{h: h, name: name}
	for _, w := range h.workers {
		def, err := w.vm.LoadProto(proto)
		if err != nil {
			return nil, err
		}
		b.layouts = append(b.layouts, newLayout(w.vm.L, name, def))
	}
	for _, t := range b.layouts {
		t.def.SetOwner(b)
	}
	return b, nil
}

// usable is the check of every method that changes agents or behaviours.
func (h *Host) usable() error {
	if h.closed {
		return errHostClosed
	}
	if h.running {
		return ErrReentrant
	}
	return nil
}

// Agents returns the agents Host.Tick ticks, in spawn order.
//
// The slice is a copy: removing agents while ranging over it is safe.
func (h *Host) Agents() []*Agent { return slices.Clone(h.agents) }

// All ranges over the agents Host.Tick ticks, in id order, without the copy
// Agents makes: for a game that reads every agent every frame. Spawning or
// removing agents while ranging over it is not allowed (use Agents then).
func (h *Host) All() iter.Seq[*Agent] {
	return func(yield func(*Agent) bool) {
		for _, a := range h.agents {
			if !yield(a) {
				return
			}
		}
	}
}

// target is the agent ai.send_to names: one Host.Tick ticks, or one a
// script spawned outside a tick and still holds.
func (h *Host) target(id int) (*Agent, bool) {
	if a, ok := h.Agent(id); ok {
		return a, true
	}
	a := h.loose[id].Value()
	return a, a != nil
}

// Agent is the agent with the given id that Tick ticks (spawned by the
// game, restored or imported), and false when there is none. Agents a
// script spawned with ai.spawn belong to that script and are not found
// here. Call it on the goroutine that owns h.
func (h *Host) Agent(id int) (*Agent, bool) {
	i, ok := slices.BinarySearchFunc(h.agents, id, func(a *Agent, id int) int { return a.id - id })
	if !ok {
		return nil, false
	}
	return h.agents[i], true
}

// AgentsIn lists the agents for which state (a path, or a bare name at any
// depth, as Agent.Active takes it) is active or paused on a stack, in id
// order.
func (h *Host) AgentsIn(state string) []*Agent {
	var out []*Agent
	for _, a := range h.agents {
		if a.Active(state) {
			out = append(out, a)
		}
	}
	return out
}

// StateCounts counts the agents by their active path (Agent.Path; "" for
// an agent with nothing active).
func (h *Host) StateCounts() map[string]int {
	out := map[string]int{}
	for _, a := range h.agents {
		out[a.Path()]++
	}
	return out
}

// Despawn takes an agent out of the host like Remove, after leaving its
// states as a machine is left (the deepest first, exit hooks run and
// reported to OnTransition as kind "despawn"). Like Remove it may be called
// from the hooks of Options.
func (h *Host) Despawn(a *Agent) error {
	if err := h.usable(); err != nil {
		return err
	}
	if err := a.usable(); err != nil {
		return err
	}
	if a.ticking {
		return ErrTicking
	}
	from := a.Path()
	old := a.w.vm.SetRunner(runner{a})
	a.ticking = true
	a.exit(a.t.root)
	a.ticking = false
	a.cur, a.curKind, a.curScore = nil, cbNone, false
	a.w.vm.SetRunner(old)
	if (h.opts.OnTransition != nil || a.followers > 0) && from != "" {
		a.w.records = append(a.w.records, record{kind: recTransition, tr: Transition{Agent: a.id, Tick: a.ticks, Kind: TransitionDespawn, From: from}})
	}
	if err := h.Remove(a); err != nil {
		return err
	}
	h.dispatch()
	return nil
}

// workerFor shards agents in blocks of 64 consecutive ids, so agents
// spawned together (and their memory, allocated together) stay on one
// worker: interleaving them makes the workers' caches fight over lines.
func (h *Host) workerFor(id int) *worker {
	return h.workers[((id-1)/64)%len(h.workers)]
}

// Remove takes an agent out of the host: Host.Tick no longer ticks it. Its
// states are not exited. Like Spawn it may be called from the hooks of
// Options, and returns ErrReentrant from a script while the workers run.
func (h *Host) Remove(a *Agent) error {
	if err := h.usable(); err != nil {
		return err
	}
	if err := a.usable(); err != nil {
		return err
	}
	a.removed = true
	h.roster++
	h.agents = removeAgent(h.agents, a)
	a.w.agents = removeAgent(a.w.agents, a)
	h.release(a)
	return nil
}

// release forgets the Go values a bound (Options.Workers' rule for them),
// and what its utility machines remember of its context's map: the
// records share a block with other agents', which would keep the map, and
// all it holds, alive as long as any of them.
func (h *Host) release(a *Agent) {
	for _, k := range a.bound {
		if h.boundBy[k] == a.id {
			delete(h.boundBy, k)
		}
	}
	a.bound = nil
	for i := range a.ms {
		a.ms[i].forget()
	}
}

func removeAgent(list []*Agent, a *Agent) []*Agent {
	i, ok := slices.BinarySearchFunc(list, a.id, func(x *Agent, id int) int { return x.id - id })
	if !ok || list[i] != a {
		return list
	}
	return slices.Delete(list, i, i+1)
}
