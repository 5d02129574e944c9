package host_test

import (
	"fmt"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// How pending events meet transitions, with a few events (each transition
// scans them) and with enough that the decide phase indexes them by name:
// the same results either way. Each transition is offered the unconsumed
// events of its name in the order they came; the first its when accepts
// fires it and is consumed; a refused stack change leaves the event to the
// next transition; a region's consumption is undone for the next region.
func TestEventMatchingOrder(t *testing.T) {
	const logFn = `local ai = require("luaai")
local function log(name) return function(ctx, p) ctx.log[#ctx.log + 1] = name .. " " .. tostring(p) end end
`
	flat := logFn + `return ai.fsm { initial = "idle", context = { log = {} }, states = {
  idle = { transitions = {
    { on = "a", to = "x", when = function(ctx, p) return p > 5 end, run = log("x") },
    { on = "b", to = "y", run = log("y") },
    { on = "a", to = "z", run = log("z") },
  } },
  x = {}, y = {}, z = {},
} }`
	refused := logFn + `return ai.fsm { initial = "idle", context = { log = {} }, states = {
  idle = { transitions = {
    { on = "a", pop = true },
    { on = "a", to = "z", run = log("z") },
  } },
  z = {},
} }`
	nested := logFn + `return ai.fsm { initial = "outer", context = { log = {} }, states = {
  outer = ai.fsm { initial = "in0",
    transitions = { { on = "a", to = "done", when = function(ctx, p) return p > 5 end, run = log("outer") } },
    states = { in0 = { transitions = { { on = "a", to = "in1", run = log("inner") } } }, in1 = {} } },
  done = {},
} }`
	regions := logFn + `return ai.regions { context = { log = {} }, states = {
  left = ai.fsm { initial = "l0", states = { l0 = { transitions = { { on = "e", to = "l1", run = log("left") } } }, l1 = {} } },
  right = ai.fsm { initial = "r0", states = {
    r0 = { transitions = { { on = "e", to = "r1", when = function(ctx, p) return p > 1 end, run = log("right") } } }, r1 = {} } },
} }`
	// Regions in a region, and a machine that decides every 10 s but at
	// once while an event is pending: each of the three sees the one event.
	deep := logFn + `local function one(name, every) return ai.fsm { initial = "s0", decide_every = every, states = {
  s0 = { transitions = { { on = "e", to = "s1", run = log(name) } } }, s1 = {} } } end
local late = one("late", 10)
return ai.regions { context = { log = {} }, states = {
  a = ai.regions { states = { a1 = one("a1"), a2 = one("a2") } },
  b = late,
} }`
	type ev struct {
		name string
		p    int
	}
	cases := []struct {
		name    string
		src     string
		events  []ev
		log     []string
		path    string
		dropped []string // names, in order; the padding left out
		errors  int
	}{
		{"first event its when accepts", flat, []ev{{"a", 1}, {"a", 7}, {"b", 2}, {"a", 9}},
			[]string{"x 7"}, "x", []string{"a", "b", "a"}, 0},
		{"when refuses all: next transition", flat, []ev{{"a", 1}, {"b", 2}, {"a", 3}, {"b", 4}},
			[]string{"y 2"}, "y", []string{"a", "a", "b"}, 0},
		{"a later transition on the same name", flat, []ev{{"a", 1}, {"a", 3}},
			[]string{"z 1"}, "z", []string{"a"}, 0},
		{"no event of its name", flat, []ev{{"c", 1}},
			nil, "idle", []string{"c"}, 0},
		{"a refused stack change leaves the event", refused, []ev{{"a", 4}},
			[]string{"z 4"}, "z", nil, 1},
		{"the inner machine sees what the outer refused", nested, []ev{{"a", 1}, {"a", 2}},
			[]string{"inner 1"}, "outer.in1", []string{"a"}, 0},
		{"the outer machine takes it first", nested, []ev{{"a", 1}, {"a", 8}},
			[]string{"outer 8"}, "done", []string{"a"}, 0},
		{"an event consumed in one region is seen by the next", regions, []ev{{"e", 1}, {"e", 2}},
			[]string{"left 1", "right 2"}, "{left.l1,right.r1}", nil, 0},
		{"consumed by any region: not dropped", regions, []ev{{"e", 1}, {"f", 5}},
			[]string{"left 1"}, "{left.l1,right.r0}", []string{"f"}, 0},
		{"regions in a region", deep, []ev{{"e", 1}},
			[]string{"a1 1", "a2 1", "late 1"}, "{a{a1.s1,a2.s1},b.s1}", nil, 0},
	}
	ways := []struct {
		name         string
		after, slack int
	}{
		{"scans", 8, 256},          // the default: these few events are never indexed
		{"index", 0, -1},           // indexed before the first transition
		{"index on the way", 0, 1}, // indexed after the first event found
		{"index a little later", 1, 2},
	}
	for _, c := range cases {
		for _, pad := range []int{0, 40} {
			for _, way := range ways {
				t.Run(fmt.Sprintf("%s/%d padding events/%s", c.name, pad, way.name), func(t *testing.T) {
					defer host.SetEventIndex(way.after, way.slack)()
					var dropped []string
					h, err := host.New(host.Options{OnEventDropped: func(e host.DroppedEvent) {
						if e.Event != "pad" {
							dropped = append(dropped, e.Event)
						}
					}})
					require.NoError(t, err)
					defer h.Close()
					b, err := h.LoadString("match.lua", c.src)
					require.NoError(t, err)
					a, err := h.Spawn(b, nil)
					require.NoError(t, err)
					for i, e := range c.events {
						for range pad / len(c.events) {
							require.NoError(t, a.Send("pad", i))
						}
						require.NoError(t, a.Send(e.name, e.p))
					}
					require.NoError(t, h.Tick(0.1))
					require.Equal(t, c.log, takeLog(a))
					require.Equal(t, c.path, a.Path())
					require.Equal(t, c.dropped, dropped)
					require.Len(t, a.TakeErrors(), c.errors)
				})
			}
		}
	}
}
