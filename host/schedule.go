package host

// Which agents a host tick ticks (tick rates): each worker keeps its agents
// of interval 1 in one list and those of each longer interval k in k lists
// by phase (id mod k), all in id order, so a host tick goes through the
// agents it ticks and no others. The time a skipped tick owes an agent is
// added when the agent is next reached, from the host's record of recent
// dts, one tick at a time in the order an eager count would have added it,
// so its dt comes out the same to the last bit.

// dtLog is how many host ticks' dts the host keeps: an agent whose owed
// time is this far behind would read a dt overwritten since. Every
// dtLog/2 ticks, each agent's owed time is brought up to date (sweep).
const dtLog = 1024

// tickLog is the host's record of recent host ticks: their dts by tick
// number modulo dtLog, the last tick whose skipped agents' owed time is
// accounted for (settled), and the last sweep.
type tickLog struct {
	dts     [dtLog]float64
	settled int // host ticks up to this one are accounted for in owed
	swept   int
}

// schedule is a worker's agents sorted for ticking: built from its agents'
// list when a spawn, removal, restore, import or SetInterval made it stale.
type schedule struct {
	stale bool
	n     int      // len(worker.agents) when built
	every []*Agent // interval 1
	tiers []tier   // intervals above 1, by k
	lists [][]*Agent
	at    []int
}

// tier is the agents of one interval k: phases[p] holds those whose id
// mod k is p, in id order (only the phases some agent has: k may be in
// the millions).
type tier struct {
	k      int
	phases map[int][]*Agent
}

// restale marks w's schedule stale.
func (w *worker) restale() { w.sched.stale = true }

// build sorts w's agents into the schedule.
func (s *schedule) build(agents []*Agent) {
	clear(s.every)
	s.every = s.every[:0]
	clear(s.tiers)
	s.tiers = s.tiers[:0]
	for _, a := range agents {
		k := a.interval
		if k <= 1 {
			s.every = append(s.every, a)
			continue
		}
		ti := -1
		for i := range s.tiers {
			if s.tiers[i].k == k {
				ti = i
				break
			}
		}
		if ti < 0 {
			s.tiers = append(s.tiers, tier{k: k, phases: map[int][]*Agent{}})
			ti = len(s.tiers) - 1
		}
		p := a.id % k
		s.tiers[ti].phases[p] = append(s.tiers[ti].phases[p], a)
	}
	s.stale, s.n = false, len(agents)
}

// due returns the lists of agents due on host tick n (each in id order):
// those of interval 1 and, for each interval k, the phase p with
// (n + p) mod k == 0.
func (w *worker) due(n int) [][]*Agent {
	s := &w.sched
	if s.stale || s.n != len(w.agents) {
		s.build(w.agents)
	}
	s.lists = append(s.lists[:0], s.every)
	for i := range s.tiers {
		k := s.tiers[i].k
		if l := s.tiers[i].phases[(k-n%k)%k]; len(l) > 0 {
			s.lists = append(s.lists, l)
		}
	}
	return s.lists
}

// merged calls fn for the agents of lists in id order, until fn returns
// false; it returns the lists' positions then (at[i]: the next agent of
// lists[i] not passed to fn).
func (s *schedule) merged(lists [][]*Agent, fn func(*Agent) bool) []int {
	s.at = s.at[:0]
	for range lists {
		s.at = append(s.at, 0)
	}
	if len(lists) == 1 {
		for i, a := range lists[0] {
			if !fn(a) {
				s.at[0] = i
				return s.at
			}
		}
		s.at[0] = len(lists[0])
		return s.at
	}
	for {
		best := -1
		for i, l := range lists {
			if s.at[i] < len(l) && (best < 0 || l[s.at[i]].id < lists[best][s.at[best]].id) {
				best = i
			}
		}
		if best < 0 {
			return s.at
		}
		a := lists[best][s.at[best]]
		if !fn(a) {
			return s.at
		}
		s.at[best]++
	}
}

// settleOwed adds to a.owed the dt of each host tick after a.seen up to n that
// skipped it while it could tick (a suspended agent owes nothing), then
// marks those ticks accounted for. Called before the agent is ticked, and
// before anything reads its owed time or changes whether it is suspended.
func (a *Agent) settleOwed(n int) {
	if a.seen >= n {
		return
	}
	if a.suspension == NotSuspended {
		log := &a.h.ticks.dts
		for f := a.seen + 1; f <= n; f++ {
			a.owed += log[f%dtLog]
		}
	}
	a.seen = n
}

// settleNow is settleOwed up to the last host tick accounted for: between
// ticks, the last one.
func (a *Agent) settleNow() { a.settleOwed(a.h.ticks.settled) }

// logTick records host tick n's dt, first bringing every agent's owed time
// up to date when the oldest it may need is about to be overwritten.
func (h *Host) logTick(n int, dt float64) {
	t := &h.ticks
	if n-t.swept >= dtLog/2 {
		for _, a := range h.agents {
			a.settleOwed(t.settled)
		}
		t.swept = n
	}
	t.dts[n%dtLog] = dt
}
