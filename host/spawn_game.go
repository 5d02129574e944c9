package host

// Spawning by the game: Spawn, SpawnWith and their options.

import "fmt"

// Spawn creates an agent running b. Each top-level key of overrides replaces
// a context default (Go values are converted: numbers, strings, booleans,
// maps and slices become Lua values; anything else is bound with
// gopher-luar). The behaviour's enter hooks run before Spawn returns.
//
// Spawn may be called from the hooks of Options (OnTransition, OnError…);
// from a script while the workers run it returns ErrReentrant (scripts
// spawn with ai.spawn).
func (h *Host) Spawn(b *Behaviour, overrides map[string]any) (*Agent, error) {
	return h.SpawnWith(b, SpawnOptions{Overrides: overrides})
}

// SpawnOptions adjust Host.SpawnWith. The zero value spawns as Spawn does.
type SpawnOptions struct {
	// Overrides replace context defaults, as Spawn's do. The default
	// (zero) value is none.
	Overrides map[string]any
	// UserData is attached as Agent.SetUserData does. The default (zero)
	// value is nil.
	UserData any
	// Sync syncs each struct pointer into the context at its key, as
	// Agent.Sync does. The default (zero) value is none.
	Sync map[string]any
	// Bind binds each Go value at its key, as Agent.Bind does. The
	// default (zero) value is none.
	Bind map[string]any
	// Interval is the agent's tick interval, as Agent.SetInterval sets
	// it: Host.Tick ticks the agent every Interval-th host tick. The
	// default (zero) value is 1, every host tick; a negative one is an
	// error wrapping ErrBadInterval, and no agent is made.
	Interval int
	// Kind is what ai.agents(kind) finds the agent by: a name the game
	// gives ("guard", "villager"). The default (zero) value is the
	// script's name without folder and extension (DefaultKind).
	Kind string
	// ID, if not zero, is the agent's id: the game's own (an NPC's id in
	// the whole world, unique across its hosts). The host never moves its
	// own numbering for it. One below 1 or above MaxID is an error wrapping
	// ErrBadID, one in use in this host an error wrapping ErrIDInUse, and
	// no agent is made. The default (zero) value takes Options.NewID's id,
	// or the host's next spawn number.
	ID int
	// Seed, if not zero, seeds the agent's random numbers (ai.random) in
	// place of Options.Seed and its id: the same seed gives the same
	// stream, on any host, under any id. The stream then follows the agent
	// in snapshots and exports. The default (zero) value seeds it from
	// Options.Seed and the id.
	Seed uint64
}

// SpawnWith is Spawn with everything the game attaches to the agent
// attached before its enter hooks run: they see the synced and bound
// values, and Caller's agent already has its UserData. When one cannot be
// attached (ErrNotSyncable, ErrNotShared…), no agent is made.
func (h *Host) SpawnWith(b *Behaviour, opts SpawnOptions) (*Agent, error) {
	if err := h.usable(); err != nil {
		return nil, err
	}
	if b == nil {
		return nil, fmt.Errorf("spawn: %w", ErrNilBehaviour)
	}
	if b.h != h {
		return nil, ErrWrongBehaviour
	}
	if opts.Interval < 0 {
		return nil, fmt.Errorf("spawn: interval %d: %w", opts.Interval, ErrBadInterval)
	}
	id, err := h.newID(opts.ID)
	if err != nil {
		return nil, fmt.Errorf("spawn: %w", err)
	}
	id.seed = opts.Seed
	w := h.workerFor(id.id)
	t := b.layouts[w.index]
	L := w.vm.L
	ctx := t.newContext(L)
	c := converter{L: L, h: h, agent: id.id}
	for _, k := range sortedMapKeys(opts.Overrides) {
		ctx.RawSetString(k, c.value(opts.Overrides[k]))
	}
	if c.err != nil {
		for _, k := range c.bound {
			delete(h.boundBy, k)
		}
		return nil, fmt.Errorf("spawn: %w", c.err)
	}
	a, err := w.spawnWith(id, b, t, ctx, nil, func(a *Agent) error {
		a.bound = c.bound
		a.user = opts.UserData
		a.interval = opts.Interval
		a.kind = opts.Kind
		for _, k := range sortedMapKeys(opts.Bind) {
			if err := a.Bind(k, opts.Bind[k]); err != nil {
				return fmt.Errorf("spawn: %w", err)
			}
		}
		for _, k := range sortedMapKeys(opts.Sync) {
			if err := a.Sync(k, opts.Sync[k]); err != nil {
				return fmt.Errorf("spawn: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	h.agents = insertByID(h.agents, a)
	w.agents = insertByID(w.agents, a)
	h.dispatch()
	return a, nil
}
