package host

import "github.com/luaai/luaai/luabind/defs"

// runPool hands out the per-agent records of one tree on one worker from
// blocks shared by consecutive agents: ticked in spawn order, an agent's
// records sit next to the previous agent's, so the tick sweeps memory
// instead of hopping between scattered small allocations. A block lives
// as long as any of its agents.
type runPool struct {
	nodes  []placeRT
	ms     []machineRT
	stacks []int
	paths  []*place
	scores []float64
	bts    []btRT
	reads  []defs.Reads // for trees with utility machines
}

// runBlock is how many agents' records a block holds when spawning.
const runBlock = 64

// reserve makes room for n agents' records.
func (p *runPool) reserve(t *layout, n int) {
	stackCap := 0
	for _, m := range t.machines {
		stackCap += len(m.children)
	}
	p.nodes = make([]placeRT, n*len(t.places))
	p.ms = make([]machineRT, n*len(t.machines))
	p.stacks = make([]int, n*stackCap)
	p.paths = make([]*place, n*(t.maxDepth+1))
	p.scores = make([]float64, n*t.maxKids)
	p.bts = make([]btRT, n*t.btCount)
	p.reads = nil
	if hasUtility(t) {
		p.reads = make([]defs.Reads, n*len(t.machines))
	}
}

// hasUtility reports whether t has a utility machine.
func hasUtility(t *layout) bool {
	for _, m := range t.machines {
		if m.def.Kind == defs.KindUtility {
			return true
		}
	}
	return false
}

// takeReads gives one agent's machine records ms their remembered reads,
// for a tree with utility machines (none otherwise): taken with its other
// records, so that its first decisions allocate nothing.
func (p *runPool) takeReads(t *layout, ms []machineRT) {
	n := len(t.machines)
	if len(p.reads) < n || len(ms) != n {
		return // a tree without utility machines has no reads in its pool
	}
	for i, m := range t.machines {
		if m.def.Kind == defs.KindUtility {
			ms[i].reads = &p.reads[i]
		}
	}
	p.reads = p.reads[n:]
}

// take returns one agent's records: fresh state records, machines with
// empty stacks of their full capacity, an empty path and scratch scores.
func (p *runPool) take(t *layout) (nodes []placeRT, ms []machineRT, bt []btRT, path []*place, scores []float64) {
	nn, nm, depth, nk, nb := len(t.places), len(t.machines), t.maxDepth+1, t.maxKids, t.btCount
	if len(p.nodes) < nn || len(p.ms) < nm || len(p.paths) < depth || len(p.scores) < nk || len(p.bts) < nb {
		p.reserve(t, runBlock)
	}
	nodes, p.nodes = p.nodes[:nn:nn], p.nodes[nn:]
	bt, p.bts = p.bts[:nb:nb], p.bts[nb:]
	ms, p.ms = p.ms[:nm:nm], p.ms[nm:]
	path, p.paths = p.paths[:0:depth], p.paths[depth:]
	scores, p.scores = p.scores[:nk:nk], p.scores[nk:]
	for i, m := range t.machines {
		k := len(m.children)
		if len(p.stacks) < k {
			p.stacks = make([]int, runBlock*k)
		}
		ms[i] = machineRT{stack: p.stacks[:0:k], history: -1, blocked: -1}
		p.stacks = p.stacks[k:]
	}
	return nodes, ms, bt, path, scores
}

// forget makes m's remembered reads remember nothing: a machine left, or
// an agent taken out, keeps no context map's slots (and the values they
// held) alive. Its next decision finds the fields again.
func (m *machineRT) forget() {
	if r := m.reads; r != nil {
		*r = defs.Reads{}
	}
}
