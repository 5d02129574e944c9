package main

// How luaai replay compares the agents with the recording, and names the
// first difference.

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/luaai/luaai/host"
)

// compare brings want (the recorded agents) to tick and compares them with
// h's; it returns 1 and "" when they are the same, else the difference.
func (rec *recording) compare(h *host.Host, tick int, want map[int]agentRow) (int, string) {
	for _, raw := range rec.rows[tick] {
		l := decodeLine(raw)
		if l.Removed {
			delete(want, l.Agent)
			continue
		}
		w, ok := want[l.Agent]
		if !ok {
			w = agentRow{ctx: map[string]string{}}
		}
		if l.State != nil {
			w.state = *l.State
		}
		if l.Paused != nil {
			w.paused = *l.Paused
		}
		if len(l.Ctx) > 0 {
			var keys map[string]json.RawMessage
			if err := json.Unmarshal(l.Ctx, &keys); err == nil {
				for k, v := range keys {
					w.ctx[k] = string(v)
				}
			}
		}
		for _, k := range l.Gone {
			delete(w.ctx, k)
		}
		want[l.Agent] = w
	}
	got := map[int]agentRow{}
	for _, a := range h.Agents() {
		got[a.ID()] = rowOf(a)
	}
	ids := make([]int, 0, len(want)+len(got))
	for id := range want {
		ids = append(ids, id)
	}
	for id := range got {
		if _, ok := want[id]; !ok {
			ids = append(ids, id)
		}
	}
	sort.Ints(ids)
	// With several scripts, an agent is named with its script's: what an
	// edit to one of them changed.
	several := len(rec.header.Scripts) > 1
	name := func(id int) string {
		if a, ok := h.Agent(id); ok && several {
			return fmt.Sprintf("agent %d (%s)", id, filepath.Base(a.Behaviour().Name()))
		}
		return fmt.Sprintf("agent %d", id)
	}
	for _, id := range ids {
		w, inRec := want[id]
		g, now := got[id]
		switch {
		case !inRec:
			return 1, fmt.Sprintf("tick %d %s: recorded no such agent, now one in %s", tick, name(id), orNone(g.state))
		case !now:
			return 1, fmt.Sprintf("tick %d %s: recorded in %s, now no such agent", tick, name(id), orNone(w.state))
		case w.state != g.state:
			return 1, fmt.Sprintf("tick %d %s state: recorded %s, now %s", tick, name(id), orNone(w.state), orNone(g.state))
		case strings.Join(w.paused, ",") != strings.Join(g.paused, ","):
			return 1, fmt.Sprintf("tick %d %s paused: recorded [%s], now [%s]", tick, name(id), strings.Join(w.paused, ", "), strings.Join(g.paused, ", "))
		}
		if d := ctxDiff(w.ctx, g.ctx); d != "" {
			return 1, fmt.Sprintf("tick %d %s %s", tick, name(id), d)
		}
	}
	return 1, ""
}

// ctxDiff names the first context field (in key order, down into tables)
// whose value differs: "ctx.target.x: recorded 1, now 2".
func ctxDiff(want, got map[string]string) string {
	keys := make([]string, 0, len(want)+len(got))
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		w, wok := want[k]
		g, gok := got[k]
		if wok && gok && w == g {
			continue
		}
		var wv, gv any = absent{}, absent{}
		if wok {
			json.Unmarshal([]byte(w), &wv)
		}
		if gok {
			json.Unmarshal([]byte(g), &gv)
		}
		path, a, b := firstDiff("ctx."+k, wv, gv)
		return fmt.Sprintf("%s: recorded %s, now %s", path, show(a), show(b))
	}
	return ""
}

// absent is a field one side does not have.
type absent struct{}

func firstDiff(path string, a, b any) (string, any, any) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := make([]string, 0, len(am)+len(bm))
		for k := range am {
			keys = append(keys, k)
		}
		for k := range bm {
			if _, ok := am[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			x, xok := am[k]
			y, yok := bm[k]
			if !xok {
				x = absent{}
			}
			if !yok {
				y = absent{}
			}
			if !reflect.DeepEqual(x, y) {
				return firstDiff(path+"."+k, x, y)
			}
		}
	}
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if aok && bok && len(as) == len(bs) {
		for i := range as {
			if !reflect.DeepEqual(as[i], bs[i]) {
				return firstDiff(fmt.Sprintf("%s[%d]", path, i+1), as[i], bs[i])
			}
		}
	}
	return path, a, b
}

func show(v any) string {
	if _, ok := v.(absent); ok {
		return "(absent)"
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return clipText(string(data), 200)
}

func clipText(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
