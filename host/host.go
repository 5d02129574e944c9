package host

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/luaai/luaai/luabind"
	lua "github.com/yuin/gopher-lua"
)

// Options configure a Host. The zero value works.
type Options struct {
	// Seed seeds every agent's random numbers (ai.random): an agent's stream
	// depends only on Seed and its spawn number. The default (zero) value is 0.
	Seed uint64
	// Roots are extra folders scripts may require modules and spawn scripts
	// from, besides the folder of the script itself. The default (zero) value
	// is none.
	Roots []string
	// MaxStackDepth limits the depth of every fsm's stack; a push beyond it is
	// reported and does not happen. The default (zero) value is 32.
	MaxStackDepth int
	// MaxErrors bounds the callback errors an agent keeps until Agent.Errors
	// is called; older ones are dropped and counted. The default (zero) value
	// is 256.
	MaxErrors int

	// OnTransition, if set, receives every state change of every agent.
	// The default (zero) value is none.
	OnTransition func(Transition)
	// OnError, if set, receives every failed callback. The default (zero)
	// value is none: errors are still kept for Agent.Errors.
	OnError func(*ScriptError)
	// OnLog, if set, receives every ai.log line. The default (zero) value
	// drops them.
	OnLog func(Log)
	// OnDecision, if set, receives every utility decision with every
	// candidate's score. The default (zero) value is none (and costs nothing).
	OnDecision func(Decision)
}

// Transition is one state change of one agent.
type Transition struct {
	Agent int    // the agent's id
	Tick  int    // the agent's tick count (0 for changes at spawn)
	Kind  string // "to", "push", "pop", "replace" (ai.replace) or "select" (utility)
	From  string // path of the state left, paused or popped ("" when a utility machine had none)
	To    string // path of the state entered or resumed
}

// Log is one ai.log line.
type Log struct {
	Agent int
	Tick  int
	State string // path of the running state
	Msg   string
}

// Decision is one utility decision: every candidate's score and the winner.
type Decision struct {
	Agent      int
	Tick       int
	Machine    string // path of the utility machine
	Candidates []Candidate
	Winner     string // path of the chosen child
	Kept       bool   // the active child was locked and kept
}

// Candidate is one child's score in a utility decision.
type Candidate struct {
	State string  // path
	Score float64 // after momentum
}

// Host runs behaviours: it owns a Lua state, the behaviours loaded into it
// and the agents spawned from them.
//
// # Concurrency
//
// A Host and everything it hands out (Behaviour, Agent) are used from one
// goroutine at a time: Lua states are not goroutine-safe. A game ticks its
// agents from its game loop.
type Host struct {
	opts       Options
	vm         *luabind.VM
	agents     []*Agent
	spawned    int
	behaviours map[*luabind.State]*Behaviour
	closed     bool
}

// New creates a host. The zero Options work.
func New(opts Options) (*Host, error) {
	if opts.MaxStackDepth < 0 {
		return nil, fmt.Errorf("host: MaxStackDepth %d is negative", opts.MaxStackDepth)
	}
	if opts.MaxErrors < 0 {
		return nil, fmt.Errorf("host: MaxErrors %d is negative", opts.MaxErrors)
	}
	if opts.MaxStackDepth == 0 {
		opts.MaxStackDepth = 32
	}
	if opts.MaxErrors == 0 {
		opts.MaxErrors = 256
	}
	h := &Host{opts: opts, behaviours: map[*luabind.State]*Behaviour{}}
	h.vm = luabind.NewVM(luabind.Options{Roots: opts.Roots})
	h.vm.SetSpawner(luaSpawner{h})
	return h, nil
}

// Close releases the Lua state. The host and its agents cannot be used after.
func (h *Host) Close() {
	if !h.closed {
		h.closed = true
		h.vm.Close()
	}
}

// VM is the host's Lua side, for tools (the test runner) that run Lua next to
// the agents.
func (h *Host) VM() *luabind.VM { return h.vm }

// LoadFile loads and validates a behaviour script. Errors name file:line; a
// script with any problem is refused whole (the error is a luabind.ErrorList).
func (h *Host) LoadFile(path string) (*Behaviour, error) {
	if h.closed {
		return nil, ErrClosed
	}
	def, err := h.vm.LoadBehaviour(path)
	if err != nil {
		return nil, err
	}
	return h.behaviour(def, filepath.ToSlash(path)), nil
}

// LoadString loads a behaviour from source text; name is used in error
// messages as the file name. Modules it requires resolve against Roots.
func (h *Host) LoadString(name, src string) (*Behaviour, error) {
	if h.closed {
		return nil, ErrClosed
	}
	proto, err := luabind.Compile(strings.NewReader(src), name)
	if err != nil {
		return nil, err
	}
	def, err := h.vm.LoadProto(proto)
	if err != nil {
		return nil, err
	}
	return h.behaviour(def, name), nil
}

func (h *Host) behaviour(def *luabind.State, name string) *Behaviour {
	if b, ok := h.behaviours[def]; ok {
		return b
	}
	b := newBehaviour(h.vm.L, name, def)
	h.behaviours[def] = b
	return b
}

// Agents returns the agents in spawn order.
func (h *Host) Agents() []*Agent { return h.agents }

// Spawn creates an agent running b. Each top-level key of overrides replaces
// a context default (Go values are converted: numbers, strings, booleans,
// maps and slices become Lua values; anything else is bound with
// gopher-luar). The behaviour's enter hooks run before Spawn returns.
func (h *Host) Spawn(b *Behaviour, overrides map[string]any) (*Agent, error) {
	if h.closed {
		return nil, ErrClosed
	}
	if b == nil || h.behaviours[b.def] != b {
		return nil, ErrWrongBehaviour
	}
	L := h.vm.L
	ctx := deepCopy(L, b.defaults, map[*lua.LTable]*lua.LTable{}).(*lua.LTable)
	for _, k := range sortedMapKeys(overrides) {
		ctx.RawSetString(k, toLua(L, overrides[k]))
	}
	return h.spawn(b, ctx), nil
}

// Tick ticks every agent by dt seconds, in spawn order.
func (h *Host) Tick(dt float64) error {
	if h.closed {
		return ErrClosed
	}
	for _, a := range h.agents {
		if err := a.Tick(dt); err != nil {
			return err
		}
	}
	return nil
}

// Remove takes an agent out of the host: Host.Tick no longer ticks it. Its
// states are not exited.
func (h *Host) Remove(a *Agent) {
	for i, x := range h.agents {
		if x == a {
			h.agents = append(h.agents[:i], h.agents[i+1:]...)
			return
		}
	}
}

// luaSpawner serves ai.spawn: agents spawned from Lua are not ticked by
// Host.Tick; the script that spawned them ticks them.
type luaSpawner struct{ h *Host }

func (s luaSpawner) Spawn(def *luabind.State, overrides *lua.LTable) (luabind.LuaAgent, error) {
	h := s.h
	b := h.behaviour(def, def.Pos.File)
	L := h.vm.L
	ctx := deepCopy(L, b.defaults, map[*lua.LTable]*lua.LTable{}).(*lua.LTable)
	if overrides != nil {
		for _, k := range sortedKeys(overrides) {
			ctx.RawSet(k, overrides.RawGet(k))
		}
	}
	return luaAgent{h.spawnDetached(b, ctx)}, nil
}
