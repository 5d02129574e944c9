package luatest

import (
	"errors"
	"fmt"
)

// Result is the outcome of one or more test files: the counts and each
// test's Case.
type Result struct {
	Passed, Failed, Pending int
	// Cases holds each test's outcome in the order the tests ran (a file
	// that did not run is one errored Case named after the file). A Go
	// test turns each into a subtest with t.Run (see RunFile's example).
	Cases []Case
}

// Add adds the counts and the cases of o to r.
func (r *Result) Add(o Result) {
	r.Passed += o.Passed
	r.Failed += o.Failed
	r.Pending += o.Pending
	r.Cases = append(r.Cases, o.Cases...)
}

// ErrFileNotRun is wrapped by RunFile's error when the file's tests did
// not run: the file could not be read, does not compile, its body raised
// an error, or the host could not run Lua (a closed host).
var ErrFileNotRun = errors.New("test file did not run")

// String is "3 passed, 0 failed", with ", 1 pending" when there are some.
func (r Result) String() string {
	s := fmt.Sprintf("%d passed, %d failed", r.Passed, r.Failed)
	if r.Pending > 0 {
		s += fmt.Sprintf(", %d pending", r.Pending)
	}
	return s
}
