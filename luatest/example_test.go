package luatest_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/luatest"
)

// OnCase is told each test's outcome, for a report of one's own (luaai
// test -o junit builds its JUnit file so).
func ExampleOptions_onCase() {
	dir, err := os.MkdirTemp("", "luatest")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	spec := filepath.Join(dir, "math_spec.lua")
	if err := os.WriteFile(spec, []byte(`describe("math", function()
  it("adds", function() assert.are.equal(4, 2 + 2) end)
  it("divides", function() assert.are.equal(3, 7 / 2) end)
  pending("roots")
end)`), 0o644); err != nil {
		panic(err)
	}
	h, err := host.New(host.Options{Roots: []string{dir}})
	if err != nil {
		panic(err)
	}
	defer h.Close()
	res, err := luatest.RunFile(h, spec, io.Discard, luatest.Options{OnCase: func(c luatest.Case) {
		fmt.Printf("%s: %s (line %d) %q\n", c.Status, c.Name, c.Pos.Line, c.Message)
	}})
	if err != nil {
		panic(err)
	}
	fmt.Println(res)
	// Output:
	// success: math adds (line 2) ""
	// failure: math divides (line 3) "expected: 3\nactual:   3.5"
	// pending: math roots (line 4) ""
	// 1 passed, 1 failed, 1 pending
}

// RunFile's Result holds each test's Case: a Go test turns them into
// subtests, one per Lua `it`, named by its describe and it names:
//
//	res, err := luatest.RunFile(h, spec, io.Discard, luatest.Options{})
//	if err != nil {
//		t.Fatal(err) // the file did not run
//	}
//	for _, c := range res.Cases {
//		t.Run(c.Name, func(t *testing.T) {
//			switch c.Status {
//			case luatest.Pending:
//				t.Skip("pending")
//			case luatest.Failed, luatest.Errored:
//				t.Errorf("%s: %s", c.Pos, c.Message)
//			}
//		})
//	}
func ExampleRunFile() {
	dir, err := os.MkdirTemp("", "luatest")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	spec := filepath.Join(dir, "guard_spec.lua")
	if err := os.WriteFile(spec, []byte(`describe("guard", function()
  it("starts idle", function() assert.is_true(true) end)
  describe("on alarm", function()
    it("runs", function() error("no run state") end)
  end)
end)`), 0o644); err != nil {
		panic(err)
	}
	h, err := host.New(host.Options{Roots: []string{dir}})
	if err != nil {
		panic(err)
	}
	defer h.Close()
	res, err := luatest.RunFile(h, spec, io.Discard, luatest.Options{})
	if err != nil {
		panic(err)
	}
	for _, c := range res.Cases {
		fmt.Printf("%s %q at %s:%d", c.Status, c.Name, filepath.Base(c.Pos.File), c.Pos.Line)
		if c.Message != "" {
			fmt.Printf(": %s", c.Message)
		}
		fmt.Println()
	}
	fmt.Println(res)
	// Output:
	// success "guard starts idle" at guard_spec.lua:2
	// error "guard on alarm runs" at guard_spec.lua:4: no run state
	// 1 passed, 1 failed
}
