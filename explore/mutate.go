package explore

import (
	"math/rand/v2"
	"slices"
)

// Limits of one input sequence.
const (
	maxSteps = 48
	maxTicks = 600 // ticks of one sequence, all steps together
)

// gen makes and mutates input sequences from a vocabulary.
type gen struct {
	v   *vocab
	rng *rand.Rand
}

func (g *gen) pick(n int) int { return g.rng.IntN(n) }

func (g *gen) chance(p float64) bool { return g.rng.Float64() < p }

// fresh is a new random sequence: a tick first (the agents at work), then
// a few inputs.
func (g *gen) fresh() []Step {
	seq := []Step{g.tick()}
	for n := 1 + g.pick(8); n > 0; n-- {
		seq = append(seq, g.step())
	}
	return g.fit(seq)
}

func (g *gen) step() Step {
	r := g.rng.Float64()
	switch {
	case r < 0.25 && len(g.v.events) > 0:
		return g.send()
	case r < 0.5 && len(g.v.fields) > 0:
		return g.set()
	}
	return g.tick()
}

func (g *gen) tick() Step {
	s := Step{Op: OpTick, N: 1, Dt: 0.1}
	switch r := g.rng.Float64(); {
	case r < 0.5:
	case r < 0.8:
		s.N = 2 + g.pick(4)
	case r < 0.95:
		s.N = 6 + g.pick(25)
	default:
		s.N = 31 + g.pick(70)
	}
	if g.chance(0.3) {
		s.Dt = g.dt()
	}
	return s
}

func (g *gen) dt() float64 {
	if len(g.v.durations) > 0 && g.chance(0.6) {
		return g.v.durations[g.pick(len(g.v.durations))]
	}
	return []float64{0, 0.016, 0.05, 0.5, 1, 5}[g.pick(6)]
}

func (g *gen) send() Step {
	e := g.v.events[g.pick(len(g.v.events))]
	s := Step{Op: OpSend, Agent: g.agentOf(e.to), Event: e.name}
	switch {
	case len(e.fields) > 0 && g.chance(0.1):
		// None at all: a game (and luaai run --input) may send the event
		// bare, and a handler reading its payload must say what it does then.
	case len(e.fields) > 0:
		// Every key its handlers read, as a game sending it would.
		fs := make([]field, len(e.fields))
		for i := range e.fields {
			fs[i] = field{e.fields[i].key, g.value(&e.fields[i])}
		}
		p := tableValue(fs)
		s.Payload = &p
	case e.scalar && g.chance(0.7):
		// A payload taken whole: a number (or a string) of the behaviour's.
		p := g.num()
		if len(g.v.strs) > 0 && g.chance(0.25) {
			p = strValue(g.v.strs[g.pick(len(g.v.strs))])
		}
		s.Payload = &p
	}
	return s
}

func (g *gen) set() Step {
	f := &g.v.fields[g.pick(len(g.v.fields))]
	return Step{Op: OpSet, Agent: g.agentOf(f.on), Key: f.key, Value: g.value(f)}
}

// agentOf is one of agents (any agent when there are none listed).
func (g *gen) agentOf(agents []int) int {
	if len(agents) == 0 {
		return g.pick(g.v.agents)
	}
	return agents[g.pick(len(agents))]
}

// value is a value worth writing into f.
func (g *gen) value(f *fieldVocab) Value {
	var opts []func() Value
	if f.num {
		opts = append(opts, g.num)
	}
	if f.boolean {
		opts = append(opts, func() Value { return boolValue(g.chance(0.5)) })
	}
	if f.none {
		opts = append(opts, func() Value { return boolValue(false) })
	}
	if f.id {
		opts = append(opts, func() Value { return agentValue(g.pick(g.v.agents)) })
	}
	if len(f.strs) > 0 {
		opts = append(opts, func() Value { return strValue(f.strs[g.pick(len(f.strs))]) })
	}
	if len(f.vals) > 0 {
		// What the natives reading it decide on, as often as the rest.
		pick := func() Value { return f.vals[g.pick(len(f.vals))] }
		opts = append(opts, pick, pick)
	}
	if f.table {
		opts = append(opts, func() Value {
			var fs []field
			for _, k := range f.keys {
				if vs := f.keyVals[k]; len(vs) > 0 && g.chance(0.8) {
					fs = append(fs, field{k, vs[g.pick(len(vs))]})
					continue
				}
				fs = append(fs, field{k, g.num()})
			}
			return tableValue(fs)
		})
	}
	if len(opts) == 0 {
		return Value{}
	}
	return opts[g.pick(len(opts))]()
}

func (g *gen) num() Value {
	return numValue(g.v.nums[g.pick(len(g.v.nums))])
}

// mutate changes a copy of seq a little; other is another sequence of the
// corpus for splicing.
func (g *gen) mutate(seq, other []Step) []Step {
	seq = clone(seq)
	for n := 1 + g.pick(3); n > 0; n-- {
		switch g.pick(8) {
		case 0, 1: // insert an input
			i := g.pick(len(seq) + 1)
			seq = slices.Insert(seq, i, g.step())
		case 2: // drop one
			if len(seq) > 1 {
				i := g.pick(len(seq))
				seq = slices.Delete(seq, i, i+1)
			}
		case 3, 4: // change one
			if len(seq) > 0 {
				i := g.pick(len(seq))
				seq[i] = g.change(seq[i])
			}
		case 5: // repeat one
			if len(seq) > 0 {
				i := g.pick(len(seq))
				seq = slices.Insert(seq, i, seq[i])
			}
		case 6: // swap two neighbours
			if len(seq) > 1 {
				i := g.pick(len(seq) - 1)
				seq[i], seq[i+1] = seq[i+1], seq[i]
			}
		default: // splice: this one's start, the other's end
			if len(other) > 0 {
				i, j := g.pick(len(seq)+1), g.pick(len(other))
				seq = append(seq[:i:i], other[j:]...)
			}
		}
	}
	return g.fit(seq)
}

// change alters one input, keeping its kind.
func (g *gen) change(s Step) Step {
	switch s.Op {
	case OpTick:
		if g.chance(0.5) {
			s.Dt = g.dt()
		} else {
			s.N = max(1, s.N+[]int{-1, 1, 5, -5}[g.pick(4)])
		}
	case OpSend:
		if f := g.payloadField(s); f != nil && g.chance(0.7) {
			p := *s.Payload
			p.fields = slices.Clone(p.fields)
			i := g.pick(len(p.fields))
			if f := g.payloadField(s, p.fields[i].key); f != nil {
				p.fields[i].val = g.value(f)
			}
			s.Payload = &p
		} else {
			agent := s.Agent
			s = g.send()
			if g.chance(0.5) && g.handles(s.Event, agent) {
				s.Agent = agent
			}
		}
	case OpSet:
		f := g.field(s.Key, s.Agent)
		if f != nil {
			s.Value = g.value(f)
		}
		if f != nil && g.v.agents > 1 && g.chance(0.3) {
			s.Agent = g.agentOf(f.on)
		}
	}
	return s
}

// field is the context field named key of agent's script.
func (g *gen) field(key string, agent int) *fieldVocab {
	for i := range g.v.fields {
		if f := &g.v.fields[i]; f.key == key && (len(f.on) == 0 || slices.Contains(f.on, agent)) {
			return f
		}
	}
	return nil
}

// payloadField is the payload field key of the event s sends (any of
// them without a key); nil when there is none.
func (g *gen) payloadField(s Step, key ...string) *fieldVocab {
	if s.Payload == nil || len(s.Payload.fields) == 0 {
		return nil
	}
	for i := range g.v.events {
		e := &g.v.events[i]
		if e.name != s.Event || len(e.to) > 0 && !slices.Contains(e.to, s.Agent) {
			continue
		}
		for j := range e.fields {
			if len(key) == 0 || e.fields[j].key == key[0] {
				return &e.fields[j]
			}
		}
	}
	return nil
}

// fit cuts a sequence to the limits.
func (g *gen) fit(seq []Step) []Step {
	if len(seq) > maxSteps {
		seq = seq[:maxSteps]
	}
	total := 0
	for i, s := range seq {
		if s.Op != OpTick {
			continue
		}
		if total+s.N > maxTicks {
			seq[i].N = maxTicks - total
			if seq[i].N == 0 {
				return seq[:i]
			}
		}
		total += seq[i].N
	}
	return seq
}

// handles tells whether agent's script handles event.
func (g *gen) handles(event string, agent int) bool {
	for _, e := range g.v.events {
		if e.name == event && (len(e.to) == 0 || slices.Contains(e.to, agent)) {
			return true
		}
	}
	return false
}
