package lsp

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luaai/luaai/internal/inspect"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each diagnostic is at what it is about: the string or name its message
// quotes, on the line the check names.
func TestDiagnosticRanges(t *testing.T) {
	base := `local ai = require("luaai")
return ai.fsm {
  initial = "closed",
  context = { alertness = 0 },
  states = {
    closed = {
      update = function(ctx) ctx.opened = ctx.alertness end,
      transitions = { { to = "open", on = "knock" } },
    },
    open = { transitions = { { to = "closed", when = ai.gt("alertness", 1) } } },
  },
}
`
	cases := []struct {
		name, from, to string
		want           string // the text the range covers
		msg            string
	}{
		{"a to naming no state", `to = "open"`, `to = "opne"`, "opne", `transition to "opne"`},
		{"an unknown initial", `initial = "closed"`, `initial = "clsoed"`, "clsoed", `initial state "clsoed"`},
		{"an unknown field", `update = function`, `updat = function`, "updat", `"updat"`},
		{"a ctx field read and declared nowhere", `ctx.alertness end`, `ctx.alertnes end`, "alertnes", "ctx.alertnes is read"},
		{"a native reading an undeclared field", `ai.gt("alertness", 1)`, `ai.gt("alert", 1)`, "alert", `reads ctx.alert`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := strings.Replace(base, c.from, c.to, 1)
			require.NotEqual(t, base, text)
			path := filepath.Join(t.TempDir(), "door.lua")
			res := inspect.CheckScript(context.Background(), path, inspect.CheckOptions{Text: []byte(text)})
			src := newSource(text)
			d := &document{path: path}
			s := newServer(Options{})
			diags := s.diagnostics(d, src, res)
			var found []string
			for _, dg := range diags {
				got := text[src.offset(dg.Range.Start):src.offset(dg.Range.End)]
				found = append(found, got+" ← "+dg.Message)
				if strings.Contains(dg.Message, c.msg) {
					assert.Equal(t, c.want, got, dg.Message)
					return
				}
			}
			t.Fatalf("no diagnostic says %q: %q", c.msg, found)
		})
	}
}
