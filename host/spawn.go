package host

import (
	"fmt"
	"sort"
	"weak"

	"github.com/luaai/luaai/internal/luaval"
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// luaSpawner serves ai.spawn in one worker's Lua state: agents spawned from
// Lua are not ticked by Host.Tick; the script that spawned them ticks them.
// Outside the workers' run (a test, a spawn-time enter hook, Agent.Tick)
// the agent is made at once; during Host.Tick or a reload the spawn is
// queued and the agent made when every worker is done (Host.applySpawns),
// so ids do not depend on which worker ran first.
type luaSpawner struct{ w *worker }

// maxQueuedSpawns bounds the agents one worker's scripts may spawn in one
// tick.
const maxQueuedSpawns = 1 << 16

// errSpawnQueueFull: a worker's scripts spawned more than maxQueuedSpawns
// agents in one tick.
var errSpawnQueueFull = fmt.Errorf("more than %d agents spawned in one tick", maxQueuedSpawns)

func (s luaSpawner) Spawn(def *defs.State, overrides *lua.LTable) (defs.LuaAgent, error) {
	w, h := s.w, s.w.h
	b, _ := def.Owner().(*Behaviour)
	if b != nil && b.h == h && b.layouts[w.index] != nil && b.layouts[w.index].def != def {
		// The definition of a behaviour reloaded since: its new version.
		def = b.layouts[w.index].def
	}
	if b == nil || b.h != h || b.layouts[w.index] == nil || b.layouts[w.index].def != def {
		// A definition built by a script (ai.spawn(ai.fsm{…})) or a script
		// path loaded by ai.spawn: it exists in this worker only, and lives
		// as long as the definition does.
		b = &Behaviour{h: h, name: def.Pos.File, layouts: make([]*layout, len(h.workers))}
		b.layouts[w.index] = newLayout(w.vm.L, def.Pos.File, def)
		def.SetOwner(b)
	}
	t := b.layouts[w.index]
	L := w.vm.L
	ctx := t.newContext(L)
	if overrides != nil {
		for _, k := range sortedKeys(overrides) {
			// The rule of every write from outside the behaviour.
			ks, ok := k.(lua.LString)
			if !ok {
				return nil, fmt.Errorf("override keys must be context keys (names), got %s", k.Type())
			}
			v := overrides.RawGet(k)
			if err := b.CheckWrite([]string{string(ks)}, luaval.ToGo(v)); err != nil {
				return nil, fmt.Errorf("override %s: %w", string(ks), err)
			}
			ctx.RawSet(k, v)
		}
	}
	if w.busy {
		if len(w.spawnQ) >= maxQueuedSpawns {
			return nil, errSpawnQueueFull
		}
		p := &pendingSpawn{w: w, b: b, t: t, ctx: ctx}
		if r, ok := w.vm.Runner().(runner); ok {
			r.a.spawnSeq++
			p.by, p.seq = r.a.id, r.a.spawnSeq
		} else {
			w.spawnSeq++
			p.seq = w.spawnSeq
		}
		p.handle = &luaAgent{p: p}
		w.spawnQ = append(w.spawnQ, p)
		return p.handle, nil
	}
	id, err := h.newID(0)
	if err != nil {
		return nil, err
	}
	a := w.spawn(id, b, t, ctx, nil)
	h.keepLoose(a)
	h.dispatch()
	return &luaAgent{a: a}, nil
}

// keepLoose lists an agent a script spawned, while the script holds it:
// ai.send_to finds it, and no new agent takes its id.
func (h *Host) keepLoose(a *Agent) {
	if h.loose == nil {
		h.loose = map[int]weak.Pointer[Agent]{}
	} else if len(h.loose) >= 1024 && len(h.loose)&(len(h.loose)-1) == 0 {
		for id, p := range h.loose { // at each power of two: forget the collected
			if p.Value() == nil {
				delete(h.loose, id)
			}
		}
	}
	h.loose[a.id] = weak.Make(a)
}

// pendingSpawn is an ai.spawn made while the workers ran.
type pendingSpawn struct {
	by, seq int // the spawning agent's id (0 for none) and its call count
	w       *worker
	b       *Behaviour
	t       *layout
	ctx     *lua.LTable
	events  []event // sent to the handle before the agent existed
	handle  *luaAgent
}

// applySpawns makes the agents queued by ai.spawn while the workers ran, by
// spawning agent id and call order; their spawn-time enter hooks run here
// (and spawn at once, not queued).
func (h *Host) applySpawns() {
	all := h.spawns[:0]
	for _, w := range h.workers {
		all = append(all, w.spawnQ...)
		clear(w.spawnQ)
		w.spawnQ = w.spawnQ[:0]
		w.spawnSeq = 0
	}
	if len(all) == 0 {
		return
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].by != all[j].by {
			return all[i].by < all[j].by
		}
		return all[i].seq < all[j].seq
	})
	for _, p := range all {
		id, err := h.newID(0)
		if err != nil {
			// Options.NewID gave an id this host cannot take: the spawn
			// does not happen, and the spawning agent's error says why.
			h.workers[0].records = append(h.workers[0].records, record{kind: recError, err: &ScriptError{
				Script: p.t.def.Pos.File, Line: p.t.def.Pos.Line, Agent: p.by, Callback: CallbackEnter,
				Msg: "ai.spawn: Options.NewID: " + err.Error(), Err: err,
			}})
			continue
		}
		a := p.w.spawn(id, p.b, p.t, p.ctx, p.events)
		h.keepLoose(a)
		p.handle.a, p.handle.p = a, nil
	}
	clear(all)
	h.spawns = all[:0]
}
