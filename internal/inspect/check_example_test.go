package inspect_test

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/luaai/luaai/internal/inspect"
)

// CheckScript checks an editor's unsaved text as luaai check checks a
// file: the problems name the script and the buffer's lines.
func ExampleCheckScript() {
	text := `local ai = require("luaai")
return ai.fsm {
  initial = "closed",
  states = {
    closed = { transitions = { { to = "opne", on = "knock" } } },
    open = {},
  },
}
`
	res := inspect.CheckScript(context.Background(), filepath.Join("mod", "door.lua"), inspect.CheckOptions{Text: []byte(text)})
	for _, e := range res.Errors {
		fmt.Println(e)
	}
	// Output:
	// mod/door.lua:5: state "closed": transition to "opne": no such state in this machine (closed, open)
}
