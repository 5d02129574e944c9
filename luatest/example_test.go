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
	res := luatest.RunFile(h, spec, io.Discard, luatest.Options{OnCase: func(c luatest.Case) {
		fmt.Printf("%s: %s (line %d) %q\n", c.Status, c.Name, c.Pos.Line, c.Message)
	}})
	fmt.Println(res)
	// Output:
	// success: math adds (line 2) ""
	// failure: math divides (line 3) "expected: 3\nactual:   3.5"
	// pending: math roots (line 4) ""
	// 1 passed, 1 failed, 1 pending
}
