package explore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/hosttool"
)

// Options are Run's choices. The zero value explores one agent for 30
// seconds with seed 0.
type Options struct {
	// Duration bounds the search: when it has passed, the call running
	// is stopped (however costly one input is) and the search ends with
	// what it found. Shortening the findings (and WriteTest checking their
	// tests) may take up to FinishGrace more. The default (zero) value is
	// 30 seconds.
	Duration time.Duration
	// Runs, when set, stops the search after that many input sequences:
	// with it (and a large Duration) a search is the same on every
	// machine. The default (zero) value is no limit.
	Runs int
	// Stale stops the search after that many sequences in a row found
	// nothing new. The default (zero) value is 20,000; a negative value
	// never stops for it.
	Stale int
	// Agents is how many agents of the script run each sequence (they may
	// message each other: their ids are among the values tried), at most
	// 64. The default (zero) value is 1.
	Agents int
	// SearchSeed chooses the inputs: the same seed (and Searchers) tries
	// the same sequences. It is not Host.Seed, the agents' own random
	// generator's seed, which the search leaves as the game set it. The
	// default (zero) value is 0.
	SearchSeed uint64
	// Host is the host the behaviour runs in, as the game makes it: its
	// Modules and Funcs (a script that requires the game's API needs
	// them), Roots, Seed, limits (MemoryLimit, BudgetSteps). The explorer
	// sets what it needs over it, and only that: the script's folder
	// first among the roots, Coverage, a generous time Budget (so that
	// what stops a runaway is the instruction budget, the same on every
	// machine), no AgentTickBudget, one worker (Workers), and no Stdout or
	// reporting hooks. A zero Host.BudgetSteps is 1,000,000 instructions
	// here, not unlimited. The default (zero) value is a plain host.
	Host host.Options
	// Searchers is how many searchers run at once, each in its own host on
	// its own goroutine, sharing what they find between rounds: the same
	// SearchSeed and Searchers try the same sequences. More than the
	// machine's cores gains nothing. With more than one, the game's
	// Host.Funcs and Host.Modules are called from several goroutines at
	// once (one host each): they must be safe for that. The default (zero)
	// value is 1.
	Searchers int
	// Progress, when set, is called about four times a second while the
	// search runs, on the goroutine that called Run or RunCast, between
	// rounds: the search waits for it to return. The default (zero) value
	// is none.
	Progress func(Progress)
}

func (o *Options) searchers() int { return min(max(o.Searchers, 1), 64) }

func (o *Options) agents() int { return min(max(o.Agents, 1), 64) }

func (o *Options) budgetSteps() int64 {
	if o.Host.BudgetSteps > 0 {
		return o.Host.BudgetSteps
	}
	return 1_000_000
}

func (o *Options) stale() int {
	switch {
	case o.Stale < 0:
		return int(^uint(0) >> 1)
	case o.Stale == 0:
		return 20_000
	}
	return o.Stale
}

// Progress is where a search is.
type Progress struct {
	Runs     int
	Covered  int // parts of the behaviour reached
	Parts    int // parts of the behaviour
	Findings int
	Elapsed  time.Duration
}

// ErrNoScript: the script did not load (the error wraps the load error).
var ErrNoScript = errors.New("script did not load")

// ErrTimeLimit is the cause of the stops at the end of Options.Duration
// (and of FinishGrace after it).
var ErrTimeLimit = errors.New("the time limit of the search")

// FinishGrace is how long after Options.Duration shortening the findings
// and checking their tests (WriteTest) may go on: what is not done by then
// is left as it is (Finding.CutShort, Finding.Unchecked).
const FinishGrace = time.Second

// Run explores the behaviour in script: it runs input sequences on fresh
// agents, keeps the sequences that reach a part of the behaviour not
// reached before and mutates those, and reports every distinct failure
// (shortened to the fewest inputs that still cause it), the dead ends it
// reached and the parts it never reached. ctx stops the search early (the
// report covers what was found), as the end of opts.Duration does: either
// stops the call running at once, whatever it is doing. The sequence it
// cuts short counts for the parts it reached and the failures it met
// before the stop (the stop itself is none); it is not built on.
func Run(ctx context.Context, script string, opts Options) (*Report, error) {
	return RunCast(ctx, []Cast{{Script: script, Agents: opts.agents()}}, opts)
}

// Cast is one of the scripts a search explores together, and how many
// agents of it each sequence spawns.
type Cast struct {
	Script string `json:"script"`
	// Agents is how many agents of Script each sequence spawns. The
	// default (zero) value is 1.
	Agents int `json:"agents"`
}

// ErrCast: RunCast's cast is empty or spawns more than 64 agents.
var ErrCast = errors.New("a search spawns 1 to 64 agents")

// RunCast explores several behaviours together, as Run explores one: each
// sequence spawns the agents of every Cast in order (the first cast's
// agents first), the events and fields each script reads go to its own
// agents, and any agent's id may be written or sent to any of them, so
// the messages between the scripts are explored. Options.Agents is
// ignored. The report names each agent's script (Report.Cast,
// Finding.Script) and the test file it writes spawns the same agents.
func RunCast(ctx context.Context, cast []Cast, opts Options) (*Report, error) {
	cast = slices.Clone(cast)
	total := 0
	for i := range cast {
		cast[i].Agents = max(cast[i].Agents, 1)
		total += cast[i].Agents
	}
	if len(cast) == 0 || total > 64 {
		return nil, fmt.Errorf("%w, got %d", ErrCast, total)
	}
	opts.Agents = total
	script := cast[0].Script
	s := &search{
		opts: &opts, script: script, cast: cast,
		seen:   map[feature]bool{},
		byKey:  map[string]*Finding{},
		totals: map[partKey]*hosttool.CoverageItem{},
		start:  time.Now(),
		ctx:    ctx,
	}
	duration := opts.Duration
	if duration <= 0 {
		duration = 30 * time.Second
	}
	deadline := s.start.Add(duration)
	var cancel context.CancelFunc
	s.timed, cancel = context.WithDeadlineCause(ctx, deadline, ErrTimeLimit)
	defer cancel()
	for i := range opts.searchers() {
		r, err := newRunner(s.timed, cast, &opts)
		if err != nil && s.timed.Err() != nil {
			// The time limit (or an interrupt) came while the script
			// loaded: nothing was tried.
			s.stopped = s.why()
			return s.report(), nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrNoScript, err)
		}
		defer r.close()
		v := castVocab(r)
		s.runners = append(s.runners, r)
		s.gens = append(s.gens, &gen{v: v, rng: rand.New(rand.NewPCG(opts.SearchSeed, 0x6c7561616921+uint64(i)))})
	}
	r := s.runners[0]
	if err := s.loop(); err != nil {
		return nil, err
	}
	rep := s.report()
	rep.finishBy = deadline.Add(FinishGrace)
	finish, cancelFinish := context.WithDeadlineCause(ctx, rep.finishBy, ErrTimeLimit)
	defer cancelFinish()
	for _, f := range rep.Findings {
		if err := shrink(finish, cast, &opts, f); err != nil {
			return nil, err
		}
	}
	for _, b := range r.bs {
		rep.DeadEnds = append(rep.DeadEnds, deadEnds(b, s.totals)...)
	}
	return rep, nil
}

// search is one exploration's state.
type search struct {
	opts     *Options
	runners  []*runner // one per worker, each with its own host
	gens     []*gen    // one per worker, each with its own random stream
	script   string    // the first of cast
	cast     []Cast
	corpus   [][]Step
	seen     map[feature]bool // parts reached, with a count bucket
	findings []*Finding
	byKey    map[string]*Finding
	totals   map[partKey]*hosttool.CoverageItem // every part reached, with hits over the search
	runs     int
	parts    int // how many parts the behaviour has (progress)
	stale    int
	stopped  string
	start    time.Time
	ctx      context.Context // Run's: its end is an interrupt
	timed    context.Context // ctx bounded by Options.Duration
	tried    tried
}

// tried counts what the search did.
type tried struct {
	events map[string]bool
	fields map[string]bool
	sends  int
	sets   int
	ticks  int
}

func (s *search) loop() error {
	s.tried = tried{events: map[string]bool{}, fields: map[string]bool{}}
	lastProgress := time.Now()
	for {
		switch {
		case s.timed.Err() != nil:
			s.stopped = s.why()
		case s.opts.Runs > 0 && s.runs >= s.opts.Runs:
			s.stopped = "runs"
		case s.stale >= s.opts.stale():
			s.stopped = "nothing new"
		}
		if s.stopped != "" {
			return nil
		}
		for i, batch := range s.round() {
			for _, res := range batch {
				if res.cut {
					// What it reached and met before the stop is so; it
					// is not a sequence to build on.
					s.reach(res.out.hits)
					s.met(res.seq, res.out.failures)
					continue
				}
				if res.err != nil {
					return fmt.Errorf("worker %d: %w", i+1, res.err)
				}
				s.runs++
				s.count(res.seq)
				if s.learn(res.seq, res.out) {
					s.corpus = append(s.corpus, res.seq)
					s.stale = 0
				} else {
					s.stale++
				}
			}
		}
		if s.opts.Progress != nil && time.Since(lastProgress) > 250*time.Millisecond {
			lastProgress = time.Now()
			s.opts.Progress(s.progress())
		}
	}
}

// why is why the search's context ended: "interrupted" (Run's ctx) or
// "time".
func (s *search) why() string {
	if s.ctx.Err() != nil {
		return "interrupted"
	}
	return "time"
}

func (s *search) progress() Progress {
	if s.parts == 0 {
		for _, bc := range hosttool.Coverage(s.runners[0].h) {
			s.parts += len(bc.Items)
		}
	}
	return Progress{Runs: s.runs, Covered: len(s.totals), Parts: s.parts, Findings: len(s.findings), Elapsed: time.Since(s.start)}
}

// result is a sequence a worker ran and what came of it.
type result struct {
	seq []Step
	out outcome
	err error
	cut bool // the time limit or an interrupt stopped it: only what it reached and met before counts
}

// roundSize is how many sequences each of several workers runs between
// two merges of what they found (one worker merges after each).
const roundSize = 256

// round runs the next sequences, on every worker at once, and returns
// each worker's results in order; the corpus does not change meanwhile,
// so what a worker tries depends only on its seed and the rounds before.
// Once the search's time is up (or it is interrupted), a worker stops: the
// sequence it was running, cut short, is marked cut.
func (s *search) round() [][]result {
	n := 1
	if len(s.runners) > 1 {
		n = roundSize
	}
	share := make([]int, len(s.runners))
	left := -1
	if s.opts.Runs > 0 {
		left = s.opts.Runs - s.runs
	}
	for j := 0; j < n; j++ {
		for i := range share {
			if left == 0 {
				break
			}
			share[i]++
			left--
		}
	}
	out := make([][]result, len(s.runners))
	work := func(i int) {
		for range share[i] {
			if s.timed.Err() != nil {
				return
			}
			seq := s.next(s.gens[i])
			o, err := s.runners[i].run(seq, "")
			if s.timed.Err() != nil {
				// Cut short: what it met may be the stop itself.
				out[i] = append(out[i], result{seq: seq, out: o, err: err, cut: true})
				return
			}
			out[i] = append(out[i], result{seq: seq, out: o, err: err})
			if err != nil {
				return
			}
		}
	}
	if len(s.runners) == 1 {
		work(0)
		return out
	}
	var wg sync.WaitGroup
	for i := range s.runners {
		wg.Go(func() { work(i) })
	}
	wg.Wait()
	return out
}

// next is the next sequence to try: mostly a mutation of one that found
// something, sometimes a fresh one.
func (s *search) next(g *gen) []Step {
	if len(s.corpus) == 0 || g.chance(0.1) {
		return g.fresh()
	}
	i := g.pick(len(s.corpus))
	if g.chance(0.5) && len(s.corpus) > 16 {
		i = len(s.corpus) - 1 - g.pick(16) // the newest finds, more often
	}
	return g.mutate(s.corpus[i], s.corpus[g.pick(len(s.corpus))])
}

func (s *search) count(seq []Step) {
	for _, st := range seq {
		switch st.Op {
		case OpTick:
			s.tried.ticks += st.N
		case OpSend:
			s.tried.sends++
			s.tried.events[st.Event] = true
		case OpSet:
			s.tried.sets++
			s.tried.fields[st.Key] = true
		}
	}
}

// learn records what a run reached and met; true when something was new.
func (s *search) learn(seq []Step, out outcome) bool {
	isNew := false
	for _, it := range out.hits {
		key := s.reach1(it)
		if f := (feature{key, bucket(it.Hits)}); !s.seen[f] {
			s.seen[f] = true
			isNew = true
		}
	}
	return s.met(seq, out.failures) || isNew
}

// met records the failures a run met; true when one was new.
func (s *search) met(seq []Step, failures []failure) bool {
	isNew := false
	for _, f := range failures {
		if s.byKey[f.key] != nil {
			continue
		}
		fd := &Finding{
			Kind: f.kind, Message: f.message, File: f.file, Line: f.line,
			State: f.state, Callback: f.callback, Agent: f.agent + 1, Script: castOf(s.cast, f.agent),
			key: f.key, Inputs: cutAt(seq, f),
			FoundAfter: s.runs, FoundIn: time.Since(s.start),
		}
		s.byKey[f.key] = fd
		s.findings = append(s.findings, fd)
		isNew = true
	}
	return isNew
}

// reach adds the hits of a run cut short to the parts reached.
func (s *search) reach(hits []hosttool.CoverageItem) {
	for _, it := range hits {
		s.reach1(it)
	}
}

// reach1 adds a part's hits to the search's totals, and returns its key.
func (s *search) reach1(it hosttool.CoverageItem) partKey {
	key := partKey{it.File, it.Kind, it.Name}
	tot := s.totals[key]
	if tot == nil {
		c := it
		c.Hits = 0
		tot = &c
		s.totals[key] = tot
	}
	tot.Hits += it.Hits
	return key
}

// partKey is a part of a behaviour; a feature is a part reached a number
// of times, in buckets.
type (
	partKey struct {
		file string
		kind hosttool.CoverKind
		name string
	}
	feature struct {
		part   partKey
		bucket int
	}
)

// bucket groups hit counts as coverage-guided fuzzers do: 1, 2, 3, 4–7,
// 8–15, 16–31, more.
func bucket(n int) int {
	switch {
	case n <= 3:
		return n
	case n < 8:
		return 4
	case n < 16:
		return 8
	case n < 32:
		return 16
	}
	return 32
}

// castOf is the script of agent i (0-based) of cast.
func castOf(cast []Cast, i int) string {
	for _, c := range cast {
		if i < c.Agents {
			return c.Script
		}
		i -= c.Agents
	}
	return ""
}
