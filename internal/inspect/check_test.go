package inspect

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// CheckScript: what luaai check says of a file, and of unsaved text in
// its place (lines of the text, not of the file; the scratch copy never
// named).
func TestCheckScript(t *testing.T) {
	dir := t.TempDir()
	machine := "local ai = require(\"luaai\")\nlocal m = require(\"mod\")\nreturn ai.fsm { initial = \"a\", states = { a = {}, b = {} } }\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "m.lua"), []byte(machine), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mod.lua"), []byte("return {}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "m_test.lua"), []byte("describe(\"x\", function() end\n"), 0o644))
	path := filepath.Join(dir, "m.lua")
	cases := []struct {
		name     string
		path     string
		opts     CheckOptions
		errs     []string
		warnings []string
		module   bool
	}{
		{name: "the file", path: path, warnings: []string{path + ":3: warning"}},
		{name: "unsaved text, two lines lower", path: path, opts: CheckOptions{Text: []byte("\n\n" + machine)}, warnings: []string{path + ":5: warning"}},
		{name: "unsaved text with an error", path: path, opts: CheckOptions{Text: []byte(strings.Replace(machine, `initial = "a"`, `initial = "c"`, 1))}, errs: []string{path + `:3: ai.fsm: initial state "c" is not one of its states`}},
		{name: "a module in a folder", path: filepath.Join(dir, "mod.lua"), opts: CheckOptions{Module: true}, module: true},
		{name: "a module alone", path: filepath.Join(dir, "mod.lua"), errs: []string{"must return a machine"}},
		{name: "a test file is compiled", path: filepath.Join(dir, "m_test.lua"), errs: []string{"m_test.lua:1:"}},
		{name: "a file that is not there", path: filepath.Join(dir, "none.lua"), errs: []string{"none.lua"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := CheckScript(context.Background(), c.path, c.opts)
			require.Len(t, res.Errors, len(c.errs), "%v", res.Errors)
			for i, e := range c.errs {
				assert.Contains(t, res.Errors[i].Error(), e)
				assert.NotContains(t, res.Errors[i].Error(), "luaai-check-")
			}
			if c.warnings != nil {
				require.Len(t, res.Warnings, len(c.warnings), "%v", res.Warnings)
				for i, w := range c.warnings {
					assert.Contains(t, res.Warnings[i].Pos.String()+": warning", w)
				}
			}
			assert.Equal(t, c.module, res.Module)
		})
	}
}
