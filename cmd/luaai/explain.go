package main

import (
	"fmt"
	"io"

	"github.com/luaai/luaai/internal/inspect"
)

// explainCompiled prints, for luaai check --explain, every function a
// script defines and whether it runs compiled to Go as a callback (when
// the values it meets allow), or why it runs in the VM: one line each,
// "file:line: compiled" or "file:line: VM: why".
func explainCompiled(w io.Writer, script string) {
	funcs, err := inspect.CompiledFuncs(script)
	if err != nil {
		return // check has reported it
	}
	for _, f := range funcs {
		if f.Compiled {
			fmt.Fprintln(w, oneLine(fmt.Sprintf("%s:%d: compiled", script, f.Line)))
			continue
		}
		fmt.Fprintln(w, oneLine(fmt.Sprintf("%s:%d: VM: %s", script, f.Line, f.Why)))
	}
}
