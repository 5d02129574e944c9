package main

// What --trace leaves out: with --trace-changes, an agent's line in the
// ticks nothing of it changed; a tree's finish told twice.

import (
	"encoding/json"
	"strings"
)

// treeFinished starts the engine's line about a tree that finished.
const treeFinished = "luaai: the tree finished: "

// isTreeFinish tells the events a tree sends when its root finishes.
func isTreeFinish(event string) bool { return event == "tree:success" || event == "tree:failure" }

// traceMemo is what an agent's last --trace-changes line showed.
type traceMemo struct {
	where string            // state, paused and suspension
	keys  map[string]string // each top-level context key's JSON
}

// changed compares an agent's state and context with its last line's: it
// returns the context keys that changed (a key gone shows as null) and
// whether anything did. The first line of each agent shows everything.
func (o *runOutput) changed(id int, state string, paused []string, suspended string, ctx any) (map[string]any, bool) {
	if o.last == nil {
		o.last = map[int]traceMemo{}
	}
	m, _ := ctx.(map[string]any)
	now := traceMemo{where: state + "\x00" + strings.Join(paused, ",") + "\x00" + suspended, keys: make(map[string]string, len(m))}
	out := map[string]any{}
	for k, v := range m {
		data, _ := json.Marshal(v)
		now.keys[k] = string(data)
	}
	prev, seen := o.last[id]
	for k, v := range now.keys {
		if !seen || prev.keys[k] != v {
			out[k] = m[k]
		}
	}
	for k := range prev.keys {
		if _, ok := now.keys[k]; !ok {
			out[k] = nil
		}
	}
	o.last[id] = now
	return out, !seen || prev.where != now.where || len(out) > 0
}
