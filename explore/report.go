package explore

import (
	"cmp"
	"slices"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/hosttool"
)

// Report is what a search found.
type Report struct {
	Script string // the first script of Cast
	// Cast is the scripts explored and how many agents of each each
	// sequence spawned, in order (agents 1..n of the first, then the
	// next's); one for Run.
	Cast []Cast
	// SearchSeed is Options.SearchSeed, which chose the inputs.
	SearchSeed uint64
	Agents     int           // all the casts' together
	Runs       int           // input sequences tried
	Elapsed    time.Duration // the search, without shortening the findings
	Stopped    string        // "time", "runs", "nothing new" or "interrupted"
	Findings   []*Finding    // in the order found
	DeadEnds   []DeadEnd
	// Parts is every part of the behaviour (states, transitions, tree
	// nodes, step items, utility children) with how often the search
	// reached it: those with Hits 0 were never reached.
	Parts []hosttool.CoverageItem
	Tried Tried

	game     host.Options // Options.Host: the written tests are checked in such a host
	finishBy time.Time    // Options.Duration and FinishGrace after the start: WriteTest's deadline
}

// Tried is what the search did, for telling what an unreached part was
// tried with.
type Tried struct {
	Events []string // events sent
	Fields []string // context fields written
	Sends  int
	Sets   int
	Ticks  int
}

// Finding is a distinct failure: a script error, an overrun or a memory
// stop, at one file:line, state and callback.
type Finding struct {
	Kind     FailureKind // KindError, KindOverrun or KindMemory
	Message  string      // "file:line: message"
	File     string
	Line     int
	State    string
	Callback string
	Agent    int    // 1-based: which agent failed
	Script   string // that agent's script
	// Inputs is the shortest sequence found that causes it, from freshly
	// spawned agents; Words tells it.
	Inputs []Step
	Words  string
	// FoundAfter is how many sequences the search had tried when it first
	// met the failure, FoundIn how long it had run.
	FoundAfter int
	FoundIn    time.Duration
	// Fresh is true when the shortened sequence causes the failure on a
	// fresh host (false: it needs what earlier sequences left behind,
	// such as state a module keeps).
	Fresh bool
	// CutShort is true when the time limit (or the search's context) ended
	// the shortening: Inputs is the shortest sequence found by then, and
	// Fresh is false when not even the first run on a fresh host ended.
	CutShort bool
	// Test is the name of the test written for it (WriteTest), and
	// Verified whether that test, run by itself, failed as it should.
	// Unchecked is true when the time limit (or WriteTestContext's
	// context) came before the test could be run: Verified is then false.
	Test      string
	Verified  bool
	Unchecked bool

	key string
}

// DeadEnd is a state the search reached that nothing leads out of: no
// transition (its own or an enclosing machine's), no `after`, no ai.pop or
// ai.replace in its code, not the only state of its machine, and not
// marked final = true.
type DeadEnd struct {
	Path string
	File string
	Line int
}

// Unreached lists the parts the search never reached.
func (r *Report) Unreached() []hosttool.CoverageItem {
	var out []hosttool.CoverageItem
	for _, it := range r.Parts {
		if it.Hits == 0 {
			out = append(out, it)
		}
	}
	return out
}

// Failed tells whether the search met a failure.
func (r *Report) Failed() bool { return len(r.Findings) > 0 }

func (s *search) report() *Report {
	rep := &Report{
		Script: s.script, Cast: s.cast, SearchSeed: s.opts.SearchSeed, Agents: s.opts.agents(), Runs: s.runs,
		Elapsed: time.Since(s.start), Stopped: s.stopped, Findings: s.findings, game: s.opts.Host,
		Tried: Tried{
			Events: sortedKeys(s.tried.events), Fields: sortedKeys(s.tried.fields),
			Sends: s.tried.sends, Sets: s.tried.sets, Ticks: s.tried.ticks,
		},
	}
	if len(s.runners) == 0 {
		return rep // the script had not loaded when the search was stopped
	}
	// Every part, in the order Coverage lists them, with the search's hits.
	for _, bc := range hosttool.Coverage(s.runners[0].h) {
		for _, it := range bc.Items {
			if tot := s.totals[partKey{it.File, it.Kind, it.Name}]; tot != nil {
				it.Hits = tot.Hits
			} else {
				it.Hits = 0
			}
			rep.Parts = append(rep.Parts, it)
		}
	}
	slices.SortStableFunc(rep.Parts, func(a, b hosttool.CoverageItem) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
	return rep
}
