package main

// The commands that act on an agent as a whole (reset, respawn, show), and
// a set on every agent, reaching the agents whose context has the key.

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/plainjson"
)

// restart applies reset, respawn or show to a, and says what it did.
func restart(a *host.Agent, l *inputLine, over spawnOverrides, stderr io.Writer) error {
	from := a.Path()
	switch {
	case l.reset:
		if err := a.Reset(); err != nil {
			return fmt.Errorf("agent %d: reset: %w", a.ID(), err)
		}
		fmt.Fprintf(stderr, "agent %d reset: %s -> %s (context kept)\n", a.ID(), oneLine(from), oneLine(a.Path()))
	case l.respawn:
		var o map[string]any
		if over != nil {
			o = over(a.Behaviour())
		}
		if err := a.Respawn(o); err != nil {
			return fmt.Errorf("agent %d: respawn: %w", a.ID(), err)
		}
		fmt.Fprintf(stderr, "agent %d respawned: %s -> %s (new context)\n", a.ID(), oneLine(from), oneLine(a.Path()))
	default:
		fmt.Fprintln(stderr, showAgent(a))
	}
	return nil
}

// showAgent is show A's line: "agent 2 (guard.lua): alert, paused
// patrol, tick 12, suspended; ctx {...}".
func showAgent(a *host.Agent) string {
	var b strings.Builder
	fmt.Fprintf(&b, "agent %d (%s): %s", a.ID(), filepath.Base(a.Behaviour().Name()), a.Path())
	if p := a.PausedStates(); len(p) > 0 {
		fmt.Fprintf(&b, ", paused %s", strings.Join(p, ", "))
	}
	fmt.Fprintf(&b, ", tick %d", a.Ticks())
	if a.Suspended() {
		b.WriteString(", suspended")
	}
	data, err := json.Marshal(plainjson.Safe(a.Context()))
	if err != nil {
		data = []byte(err.Error())
	}
	fmt.Fprintf(&b, "; ctx %s", data)
	return oneLine(b.String())
}

// havingKeys is the agents whose context has every key l sets (the first
// key of a dotted path); none of them is an error naming a key no agent
// has.
func havingKeys(agents []*host.Agent, l *inputLine) ([]*host.Agent, error) {
	var paths [][]string
	for k := range l.set {
		paths = append(paths, strings.Split(k, "."))
	}
	for _, as := range l.assign {
		paths = append(paths, as.path)
	}
	var out []*host.Agent
	var missing string
	for _, a := range agents {
		ok := true
		for _, p := range paths {
			if _, has := a.Behaviour().Default(p[:1]); !has {
				ok, missing = false, p[0]
				break
			}
		}
		if ok {
			out = append(out, a)
		}
	}
	if len(out) == 0 && len(agents) > 0 {
		return nil, fmt.Errorf("set %s: no agent's context has the key %q", missing, missing)
	}
	return out, nil
}
