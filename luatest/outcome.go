package luatest

import (
	"fmt"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/scripterr"
)

// A test's outcome as RunFile reports it (Options.OnCase), and what a
// test leaves behind in the host, undone when it ends.

// Status is the outcome of one test.
type Status int

// The outcomes of a test, as busted's output handlers name them: a
// failed assertion fails a test; any other error (and a file that did not
// load) is an error.
const (
	Passed Status = iota
	Failed
	Errored
	Pending
)

// String is busted's word for the outcome: success, failure, error,
// pending.
func (s Status) String() string {
	switch s {
	case Passed:
		return "success"
	case Failed:
		return "failure"
	case Errored:
		return "error"
	case Pending:
		return "pending"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Case is the outcome of one test, as RunFile reports it to
// Options.OnCase (for JUnit, TAP or JSON reports).
type Case struct {
	File string // the test file
	// Name is the test's full name (its describe names and its it name);
	// for a test file that did not load, the file's path.
	Name     string
	Pos      scripterr.Pos // where the test was declared (or where the file failed)
	Status   Status
	Message  string        // what failed, without the FAIL line; "" when it passed
	Output   string        // what RunFile wrote of it ("" when it passed quietly)
	Duration time.Duration // how long the test (with its hooks) ran
}

// endTest undoes what a test did to the host: the agents it spawned are
// removed (ai.agents and ai.send_to no longer find them, whenever Lua
// collects them), and the scripts it reloaded spawn their versions from
// before the test again.
func (r *runner) endTest() {
	if r.host != nil {
		for _, la := range r.spawned {
			if h, ok := la.(interface{ Agent() *host.Agent }); ok && h.Agent() != nil {
				_ = r.host.Remove(h.Agent()) // an agent removed already is left as it is
			}
		}
	}
	r.spawned = r.spawned[:0]
	for _, b := range r.reloaded {
		for _, def := range r.vm.Behaviours() {
			if def.Owner() == any(b) {
				def.SetOwner(nil)
			}
		}
	}
	r.reloaded = r.reloaded[:0]
}
