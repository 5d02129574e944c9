// Package zones is an example of one world split into zones, each its own
// luaai host (and, in the tests, its own OS process), joined by NATS: NPCs
// walk across the border between zone 0 (x < 0) and zone 1 (x ≥ 0) and are
// handed over with Host.Export and Host.Import; they greet friends in
// either zone with a plain ai.send_to, which the host offers to the game
// (Options.OnSendElsewhere) and the other zone delivers with Host.Deliver.
//
// The zones tick in step. After each tick, every zone publishes one frame
// on the bus: the NPCs leaving it (one export document per zone they go
// to) and the messages its NPCs sent to ids it does not hold. When it has
// the other zones' frames for that tick, it imports the NPCs coming in,
// then delivers every message, its own outbox included, whose receiver it
// now holds. Each message is delivered by exactly one zone (the one
// holding its receiver after the handoffs), into the place a message from
// that sender would have on a single host: every NPC's trace is the one it
// has in a world run on one host.
package zones

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/luaai/luaai/host"
)

//go:embed npc.lua
var npcScript string

// Dt is the world's tick, in seconds.
const Dt = 0.1

// World sizes one run: NPCs and ticks; Zones is the number of zones (1: a
// single host, the reference).
type World struct {
	NPCs, Ticks, Zones int
}

// NPCID is the game's id of NPC i: ids are the game's, the same in every
// zone (and on the single host).
func NPCID(i int) int { return 10_000 + 3*i }

// ZoneOf is the zone that owns a position: the game's rule of authority.
func (w World) ZoneOf(x float64) int {
	if w.Zones <= 1 || x < 0 {
		return 0
	}
	return 1
}

// start is NPC i's position and friends.
func (w World) start(i int) (x float64, friends []any) {
	x = float64((i*17)%81 - 40)
	for k := 1; k <= 3; k++ {
		friends = append(friends, float64(NPCID((i+k*7)%w.NPCs)))
	}
	return x, friends
}

// Frame is what a zone publishes after a tick.
type Frame struct {
	Zone, Tick int
	// Handoffs are the export documents of the NPCs leaving, by the zone
	// they go to.
	Handoffs map[int]json.RawMessage `json:",omitempty"`
	// Messages are the ai.send_to calls to NPCs the zone does not hold, in
	// sender order.
	Messages []host.Message `json:",omitempty"`
}

// Zone is one zone's host and its part of the world.
type Zone struct {
	World World
	Index int
	Host  *host.Host
	npc   *host.Behaviour
	// Trace is every NPC's transitions (arrivals left out) and greetings,
	// by NPC id, as this zone saw them.
	Trace  map[int][]string
	outbox []host.Message
	// Moved counts the NPCs this zone handed over, Crossed the messages
	// from another zone's NPCs it delivered.
	Moved, Crossed int
}

// NewZone makes zone index of w, with the NPCs that start in it.
func NewZone(w World, index int) (*Zone, error) {
	z := &Zone{World: w, Index: index, Trace: map[int][]string{}}
	h, err := host.New(host.Options{
		Seed: 42, // the same in every zone: an NPC's random numbers follow it
		OnTransition: func(tr host.Transition) {
			if tr.Kind == host.TransitionRestore {
				return // an arrival, not a change of state
			}
			z.Trace[tr.Agent] = append(z.Trace[tr.Agent], fmt.Sprintf("%d %s %s>%s %s/%d", tr.Tick, tr.Kind, tr.From, tr.To, tr.Event, tr.Sender))
		},
		OnError: func(e *host.ScriptError) {
			z.Trace[e.Agent] = append(z.Trace[e.Agent], fmt.Sprintf("%d error %s", e.Tick, e.Error()))
		},
		OnSendElsewhere: func(m host.Message) {
			z.outbox = append(z.outbox, m)
		},
	})
	if err != nil {
		return nil, err
	}
	z.Host = h
	if z.npc, err = h.LoadString("npc.lua", npcScript); err != nil {
		h.Close()
		return nil, err
	}
	for i := 0; i < w.NPCs; i++ {
		x, friends := w.start(i)
		if w.ZoneOf(x) != index {
			continue
		}
		_, err := h.SpawnWith(z.npc, host.SpawnOptions{ID: NPCID(i), Overrides: map[string]any{"x": x, "friends": friends}})
		if err != nil {
			h.Close()
			return nil, err
		}
	}
	return z, nil
}

// Tick runs the zone's tick t and returns its frame: the NPCs that left
// (exported) and the messages for NPCs it does not hold.
func (z *Zone) Tick(t int) (Frame, error) {
	if err := z.Host.Tick(Dt); err != nil {
		return Frame{}, err
	}
	f := Frame{Zone: z.Index, Tick: t, Messages: z.outbox}
	z.outbox = nil
	leaving := map[int][]*host.Agent{}
	for _, a := range z.Host.Agents() {
		x, _ := a.Get("x").(float64)
		if to := z.World.ZoneOf(x); to != z.Index {
			leaving[to] = append(leaving[to], a)
		}
	}
	for to, list := range leaving {
		doc, err := z.Host.Export(list...)
		if err != nil {
			return Frame{}, err
		}
		if f.Handoffs == nil {
			f.Handoffs = map[int]json.RawMessage{}
		}
		f.Handoffs[to] = doc
		z.Moved += len(list)
	}
	return f, nil
}

// Receive takes this zone's own frame and the other zones' frames of the
// same tick: it imports the NPCs coming in, then delivers the messages
// whose receivers it holds now.
func (z *Zone) Receive(frames []Frame) error {
	frames = slices.Clone(frames)
	sort.Slice(frames, func(i, j int) bool { return frames[i].Zone < frames[j].Zone })
	for _, f := range frames {
		if doc, ok := f.Handoffs[z.Index]; ok {
			if _, err := z.Host.Import(doc, host.ImportOptions{}, z.npc); err != nil {
				return fmt.Errorf("zone %d: NPCs from zone %d: %w", z.Index, f.Zone, err)
			}
		}
	}
	for _, f := range frames {
		for _, m := range f.Messages {
			if _, ok := z.Host.Agent(m.To); !ok {
				continue // another zone holds it, and delivers it
			}
			if err := z.Host.Deliver(m); err != nil {
				return fmt.Errorf("zone %d: message from zone %d: %w", z.Index, f.Zone, err)
			}
			if f.Zone != z.Index {
				z.Crossed++
			}
		}
	}
	return nil
}

// Result is what a run leaves: every NPC's trace, and each NPC's state at
// the end (its snapshot: context, states, timers, random numbers, pending
// messages).
type Result struct {
	Trace          map[int][]string
	Final          map[int]string
	Moved, Crossed int
}

// Result is the zone's part of the run's result.
func (z *Zone) Result() (Result, error) {
	r := Result{Trace: z.Trace, Final: map[int]string{}, Moved: z.Moved, Crossed: z.Crossed}
	for _, a := range z.Host.Agents() {
		s, err := a.Snapshot()
		if err != nil {
			return r, err
		}
		r.Final[a.ID()] = string(s)
	}
	return r, nil
}

// Merge puts the zones' results together: an NPC's trace is its parts in
// tick order (each part is the zone it was in then).
func Merge(parts ...Result) Result {
	out := Result{Trace: map[int][]string{}, Final: map[int]string{}}
	for _, p := range parts {
		for id, tr := range p.Trace {
			out.Trace[id] = append(out.Trace[id], tr...)
		}
		for id, s := range p.Final {
			out.Final[id] = s
		}
		out.Moved += p.Moved
		out.Crossed += p.Crossed
	}
	for id, tr := range out.Trace {
		sort.SliceStable(tr, func(i, j int) bool { return tickOf(tr[i]) < tickOf(tr[j]) })
		out.Trace[id] = tr
	}
	return out
}

func tickOf(line string) int {
	var t int
	fmt.Sscanf(line, "%d", &t)
	return t
}

// RunOneHost runs the world on a single host: the reference.
func RunOneHost(w World) (Result, error) {
	w.Zones = 1
	z, err := NewZone(w, 0)
	if err != nil {
		return Result{}, err
	}
	defer z.Host.Close()
	for t := 1; t <= w.Ticks; t++ {
		if _, err := z.Tick(t); err != nil {
			return Result{}, err
		}
	}
	return z.Result()
}
