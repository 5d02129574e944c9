package host_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// treeRig is the behaviour every composite and decorator case runs in: a
// tree state whose leaves play a status script (ctx.plan[name], one letter
// per call: S success, F failure, R running; the last letter repeats) and
// log "name:letter" when ticked. A finished root shows as "=S" or "=F" at
// the next tick (the tree:success / tree:failure event).
const treeRig = `
local function leaf(name)
  return ai.action(function(ctx)
    local plan = ctx.plan[name]
    local i = (ctx.calls[name] or 0) + 1
    ctx.calls[name] = i
    local c = plan:sub(i, i)
    if c == "" then c = plan:sub(-1) end
    log(ctx, name .. ":" .. c)
    return ({ S = "success", F = "failure", R = "running" })[c]
  end, { name = name })
end
local a, b, c, x, y = leaf("a"), leaf("b"), leaf("c"), leaf("x"), leaf("y")
local _ = { a, b, c, x, y }
return ai.fsm { initial = "t", states = {
  t = ai.tree { root = %s, transitions = {
    { on = "tree:success", run = function(ctx, p) log(ctx, "=S " .. p) end },
    { on = "tree:failure", run = function(ctx, p) log(ctx, "=F " .. p) end },
  } },
} }`

// One line per tick: the leaves ticked, the finish of the tick before, and
// the running path ("[...]"), or "-" when nothing runs.
func runTreeCase(t *testing.T, root string, plan map[string]string, ticks int) []string {
	t.Helper()
	f := newFixture(t, fmt.Sprintf(treeRig, root))
	p := map[string]any{}
	for k, v := range plan {
		p[k] = v
	}
	a := f.spawn(map[string]any{"plan": p, "calls": map[string]any{}})
	var out []string
	for range ticks {
		f.tick(a, 0.1)
		line := strings.Join(takeLog(a), " ")
		path := strings.TrimPrefix(a.Path(), "t")
		if path == "" {
			path = "-"
		}
		out = append(out, strings.TrimSpace(line+" "+path))
	}
	require.Empty(t, f.se, "no callback errors")
	return out
}

func TestTreeNodes(t *testing.T) {
	cases := []struct {
		name string
		root string
		plan map[string]string
		want []string
	}{
		{"sequence remembers its running child", `ai.sequence{ a, b, c }`,
			map[string]string{"a": "S", "b": "RRS", "c": "S"},
			[]string{"a:S b:R [sequence.b]", "b:R [sequence.b]", "b:S c:S -", "=S t a:S b:S c:S -"}},
		{"sequence fails at the first failure", `ai.sequence{ a, b, c }`,
			map[string]string{"a": "S", "b": "F", "c": "S"},
			[]string{"a:S b:F -", "=F t a:S b:F -"}},
		{"reactive sequence re-checks from the first child", `ai.reactive_sequence{ a, b }`,
			map[string]string{"a": "SSF", "b": "R"},
			[]string{"a:S b:R [reactive_sequence.b]", "a:S b:R [reactive_sequence.b]", "a:F -", "=F t a:F -"}},
		{"a halted subtree starts afresh", `ai.reactive_sequence{ a, ai.sequence{ x, y } }`,
			map[string]string{"a": "SSFS", "x": "S", "y": "R"},
			[]string{"a:S x:S y:R [reactive_sequence.sequence#2.y]", "a:S y:R [reactive_sequence.sequence#2.y]",
				"a:F -", "=F t a:S x:S y:R [reactive_sequence.sequence#2.y]"}},
		{"selector remembers its running child", `ai.selector{ a, b, c }`,
			map[string]string{"a": "F", "b": "RS", "c": "S"},
			[]string{"a:F b:R [selector.b]", "b:S -", "=S t a:F b:S -"}},
		{"selector fails when every child fails", `ai.selector{ a, b }`,
			map[string]string{"a": "F", "b": "F"},
			[]string{"a:F b:F -", "=F t a:F b:F -"}},
		{"reactive selector: an earlier success halts the running child", `ai.reactive_selector{ a, ai.sequence{ x, y } }`,
			map[string]string{"a": "FFSF", "x": "S", "y": "R"},
			[]string{"a:F x:S y:R [reactive_selector.sequence#2.y]", "a:F y:R [reactive_selector.sequence#2.y]",
				"a:S -", "=S t a:F x:S y:R [reactive_selector.sequence#2.y]"}},
		{"parallel: all must succeed, finished children are not ticked", `ai.parallel{ a, b }`,
			map[string]string{"a": "RS", "b": "RRS"},
			[]string{"a:R b:R [parallel.a]", "a:S b:R [parallel.b]", "b:S -", "=S t a:S b:S -"}},
		{"parallel: one failure ends it and halts the rest", `ai.parallel{ a, b, c }`,
			map[string]string{"a": "RF", "b": "R", "c": "R"},
			[]string{"a:R b:R c:R [parallel.a]", "a:F -", "=F t a:F -"}},
		{"parallel succeed one", `ai.parallel{ succeed = "one", a, b }`,
			map[string]string{"a": "R", "b": "RS"},
			[]string{"a:R b:R [parallel.a]", "a:R b:S -", "=S t a:R b:S -"}},
		{"parallel fail all: neither rule met is a failure", `ai.parallel{ fail = "all", a, b }`,
			map[string]string{"a": "F", "b": "S"},
			[]string{"a:F b:S -", "=F t a:F b:S -"}},
		{"parallel fail all: all failed", `ai.parallel{ fail = "all", a, b }`,
			map[string]string{"a": "RF", "b": "F"},
			[]string{"a:R b:F [parallel.a]", "a:F -", "=F t a:F b:F -"}},
		{"invert", `ai.sequence{ ai.invert(a), ai.invert(b) }`,
			map[string]string{"a": "F", "b": "RS"},
			[]string{"a:F b:R [sequence.invert#2.b]", "b:S -", "=F t a:F b:S -"}},
		{"loop with a count, one run per tick", `ai.loop(a, 3)`,
			map[string]string{"a": "RSSS"},
			[]string{"a:R [loop.a]", "a:S [loop]", "a:S [loop]", "a:S -", "=S t a:S [loop]"}},
		{"loop forever ends on a failure", `ai.loop(a)`,
			map[string]string{"a": "SSF"},
			[]string{"a:S [loop]", "a:S [loop]", "a:F -", "=F t a:F -"}},
		{"loop forever, named", `ai.loop(a, { name = "again" })`,
			map[string]string{"a": "SSF"},
			[]string{"a:S [again]", "a:S [again]", "a:F -", "=F t a:F -"}},
		{"retry tries again at the next tick, and gives up after count retries", `ai.retry(a, 2)`,
			map[string]string{"a": "F"},
			[]string{"a:F [retry]", "a:F [retry]", "a:F -", "=F t a:F [retry]"}},
		{"retry ends at the first success", `ai.retry(a, 2)`,
			map[string]string{"a": "FRS"},
			[]string{"a:F [retry]", "a:R [retry.a]", "a:S -", "=S t a:S -"}},
		{"retry without a count retries until a success", `ai.retry(a)`,
			map[string]string{"a": "FFFFS"},
			[]string{"a:F [retry]", "a:F [retry]", "a:F [retry]", "a:F [retry]", "a:S -", "=S t a:S -"}},
		{"retry inside a sequence", `ai.sequence{ ai.retry(a, 1, { name = "again" }), b }`,
			map[string]string{"a": "FS", "b": "S"},
			[]string{"a:F [sequence.again]", "a:S b:S -", "=S t a:S b:S -"}},
		{"cooldown fails without ticking its child", `ai.cooldown(a, 0.25)`,
			map[string]string{"a": "S"},
			[]string{"a:S -", "=S t -", "=F t -", "=F t a:S -", "=S t -"}},
		{"timeout counts from the first running", `ai.timeout(a, 0.2)`,
			map[string]string{"a": "R"},
			[]string{"a:R [timeout.a]", "a:R [timeout.a]", "-", "=F t a:R [timeout.a]"}},
		{"timeout lets a finish through", `ai.timeout(a, 0.2)`,
			map[string]string{"a": "RS"},
			[]string{"a:R [timeout.a]", "a:S -", "=S t a:S -"}},
		{"force", `ai.sequence{ ai.force(a, "success"), ai.force(b, "failure") }`,
			map[string]string{"a": "RF", "b": "S"},
			[]string{"a:R [sequence.force#1.a]", "a:F b:S -", "=F t a:F b:S -"}},
		{"wait counts the tick it is reached as 0", `ai.sequence{ a, ai.wait(0.2), b }`,
			map[string]string{"a": "S", "b": "S"},
			[]string{"a:S [sequence.wait#2]", "[sequence.wait#2]", "b:S -", "=S t a:S [sequence.wait#2]"}},
		{"check and wait_until take Lua and native conditions", `ai.sequence{ ai.check(ai.is("go")), ai.wait_until(function(ctx) return ctx.calls.a == 2 end), ai.check(true) }`,
			map[string]string{},
			[]string{"-", "=F t -"}},
		{"names", `ai.selector{ name = "root", ai.sequence{ name = "fight", a, ai.wait(1, { name = "aim" }) } }`,
			map[string]string{"a": "S"},
			[]string{"a:S [root.fight.aim]"}},
		{"a function is an action", `ai.sequence{ function(ctx) log(ctx, "fn") return "running" end }`,
			map[string]string{},
			[]string{"fn [sequence.action#1]", "fn [sequence.action#1]"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := runTreeCase(t, c.root, c.plan, len(c.want))
			require.Equal(t, c.want, got)
		})
	}
}

// A wait_until leaf runs until its condition holds.
func TestTreeWaitUntil(t *testing.T) {
	got := runTreeCase(t, `ai.sequence{ ai.wait_until(function(ctx) return (ctx.calls.a or 0) >= 2 end), a }`,
		map[string]string{"a": "S"}, 0)
	require.Empty(t, got)
	f := newFixture(t, fmt.Sprintf(treeRig, `ai.sequence{ ai.wait_until(ai.ge("n", 2)), a }`))
	ag := f.spawn(map[string]any{"plan": map[string]any{"a": "S"}, "calls": map[string]any{}, "n": 0})
	for i := range 2 {
		f.tick(ag, 0.1)
		require.Equal(t, "t[sequence.wait_until#1]", ag.Path(), "tick %d", i+1)
		require.NoError(t, ag.Set("n", i+1))
	}
	f.tick(ag, 0.1)
	require.Equal(t, []string{"a:S"}, takeLog(ag))
}

// The cooldown survives the tree's own restarts, not a re-entry of the state.
func TestTreeCooldownAcrossReentry(t *testing.T) {
	src := `
local n = 0
local hit = ai.action(function(ctx) n = n + 1; log(ctx, "hit"); return true end)
return ai.fsm { initial = "t", states = {
  t = ai.tree { root = ai.cooldown(hit, 10), transitions = { { to = "idle", on = "leave" } } },
  idle = { transitions = { { to = "t", on = "back" } } },
} }`
	f := newFixture(t, src)
	a := f.spawn(nil)
	f.tick(a, 0.1)
	require.Equal(t, []string{"hit"}, takeLog(a))
	for range 3 {
		f.tick(a, 0.1)
	}
	require.Empty(t, takeLog(a), "cooling down across the tree's restarts")
	require.NoError(t, a.Send("leave", nil))
	f.tick(a, 0.1)
	require.NoError(t, a.Send("back", nil))
	f.tick(a, 0.1)
	require.Equal(t, []string{"hit"}, takeLog(a), "entering the state starts the tree afresh")
}

// Bad leaves are reported with file:line and count as failure; the agent goes on.
func TestTreeBadLeaves(t *testing.T) {
	src := `
return ai.fsm { initial = "t", states = {
  t = ai.tree { root = ai.selector {
    ai.action(function(ctx) return 42 end, { name = "numbers" }),
    ai.action(function(ctx) error("boom") end, { name = "raises" }),
    ai.check(function(ctx) return ctx.nothing.here end, { name = "bad_check" }),
    ai.action(function(ctx) log(ctx, "last") return "running" end),
  } },
} }`
	f := newFixture(t, src)
	a := f.spawn(nil)
	f.tick(a, 0.1)
	require.Equal(t, []string{"last"}, takeLog(a))
	require.Len(t, f.se, 3)
	require.Equal(t, host.CallbackAction, f.se[0].Callback)
	require.Contains(t, f.se[0].Error(), `test.lua:15: ai.action "selector.numbers" returned 42 (a number), not a status`)
	require.Equal(t, host.CallbackAction, f.se[1].Callback)
	require.Contains(t, f.se[1].Error(), "test.lua:16: boom")
	require.Equal(t, host.CallbackCheck, f.se[2].Callback)
	require.Contains(t, f.se[2].Error(), "test.lua:17:")
	require.Contains(t, f.se[2].Error(), "selector.bad_check")
	f.tick(a, 0.1)
	require.Equal(t, []string{"last"}, takeLog(a), "the agent goes on")
}

// Definition errors name the file and line.
func TestTreeDefinitionErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{`return ai.fsm{ initial = "t", states = { t = ai.tree { root = ai.sequence{} } } }`, "test.lua:13: ai.sequence: a composite needs at least one child"},
		{`return ai.fsm{ initial = "t", states = { t = ai.tree { root = ai.wait(-1) } } }`, "test.lua:13: ai.wait: seconds must be a non-negative number, got the number -1"},
		{`return ai.fsm{ initial = "t", states = { t = { steps = { ai.wait(-1) } } } }`, "test.lua:13: ai.wait: seconds must be a non-negative number, got the number -1"},
		{`return ai.fsm{ initial = "t", states = { t = ai.tree { root = ai.sequence{ ai.wait(1, { name = "a" }), ai.wait(2, { name = "a" }) } } } }`, `two children are named "a"`},
		{`return ai.fsm{ initial = "t", states = { t = ai.tree { root = ai.sequence{ name = "a.b", function() end } } } }`, `name "a.b" may not contain`},
		{`return ai.fsm{ initial = "t", states = { t = ai.tree { root = 3 } } }`, "test.lua:13: ai.tree: root must be a node"},
		{`return ai.fsm{ initial = "t", states = { t = ai.tree { root = ai.force(function() end, "maybe") } } }`, `ai.force: status must be "success", "failure" or "running"`},
		{`return ai.fsm{ initial = "t", states = { t = ai.tree { root = ai.loop(function() end, 0) } } }`, "ai.loop: count must be a positive whole number"},
		{`return ai.fsm{ initial = "t", states = { t = ai.tree { root = ai.parallel{ succeed = "most", function() end } } } }`, `ai.parallel: succeed must be "all" or "one"`},
		{`return ai.fsm{ initial = "t", states = { t = { steps = { ai.sequence{ function() end } } } } }`, "steps item 1 must be a function, ai.action(fn, { name = … }), ai.wait(seconds) or ai.wait_until(cond), got ai.sequence"},
		{`return ai.fsm{ initial = "t", states = { t = { steps = 5 } } }`, "steps must be a list"},
		{`return ai.fsm{ initial = "t", states = { t = ai.regions { states = {} } } }`, "a machine needs at least one state"},
		{`return ai.fsm{ initial = "t", states = { t = ai.regions { states = { a = {} } } } }`, `region "a": a region must be a machine`},
		{`return ai.fsm{ initial = "t", states = { t = ai.regions { initial = "a", states = { a = ai.fsm{ initial = "x", states = { x = {} } } } } } }`, "regions are all active at once"},
		{`return ai.fsm{ initial = "t", states = { t = ai.regions { states = { a = ai.fsm{ initial = "x", states = { x = {} }, transitions = { { to = "a" } } } } } } }`, "regions take no transitions"},
		{`return ai.fsm{ initial = "t", states = { t = ai.sequence{ function() end } } }`, "wrap it: ai.tree { root = … }"},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			h, err := host.New(host.Options{})
			require.NoError(t, err)
			defer h.Close()
			_, err = h.LoadString("test.lua", prelude+"\n"+c.src)
			require.Error(t, err)
			require.Contains(t, err.Error(), c.want)
		})
	}
}

// Hostile definitions: a node shared 2^40 ways, a huge steps list, a very
// deep tree. Each is refused or runs in bounded time.
func TestTreeHostileDefinitions(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	_, err = h.LoadString("wide.lua", `local ai = require("luaai")
local n = ai.action(function() return true end, { name = "a" })
for _ = 1, 40 do n = ai.sequence { n, ai.invert(n, { name = "i" }), name = "s" } end
return ai.fsm { initial = "t", states = { t = ai.tree { root = n } } }`)
	require.ErrorContains(t, err, "wide.lua:4: ai.tree: more than 10000 nodes")
	_, err = h.LoadString("steps.lua", `local ai = require("luaai")
local s = {}
for i = 1, 20000 do s[i] = function() end end
return ai.fsm { initial = "t", states = { t = { steps = s } } }`)
	require.ErrorContains(t, err, "steps.lua:4: state \"t\": more than 10000 steps")
	_, err = h.LoadString("deep.lua", `local ai = require("luaai")
local n = ai.action(function() return "running" end, { name = "leaf" })
for _ = 1, 5000 do n = ai.invert(n) end
return ai.fsm { initial = "t", states = { t = ai.tree { root = n } } }`)
	require.ErrorContains(t, err, "deep.lua:4: ai.tree: the node paths are longer than 1048576 bytes together")
	// Long names nested deep: refused before the paths are built.
	_, err = h.LoadString("long.lua", `local ai = require("luaai")
local n = ai.action(function() return "running" end, { name = "leaf" })
for i = 1, 2000 do n = ai.invert(n, { name = string.rep("n", 5000) .. i }) end
return ai.fsm { initial = "t", states = { t = ai.tree { root = n } } }`)
	require.ErrorContains(t, err, "long.lua:4: ai.tree: the node paths are longer than 1048576 bytes together")
	_, err = h.LoadString("states.lua", `local ai = require("luaai")
local m = ai.fsm { initial = "x", states = { x = {} } }
for i = 1, 2000 do
  local name = string.rep("s", 5000) .. i
  m = ai.fsm { initial = name, states = { [name] = m } }
end
return m`)
	require.ErrorContains(t, err, "the behaviour's state paths are longer than 1048576 bytes together")
	b, err := h.LoadString("deep.lua", `local ai = require("luaai")
local n = ai.action(function() return "running" end, { name = "leaf" })
for _ = 1, 300 do n = ai.invert(n) end
return ai.fsm { initial = "t", states = { t = ai.tree { root = n } } }`)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	require.NoError(t, a.Tick(0.1))
	require.True(t, strings.HasSuffix(a.Path(), ".leaf]"))
	require.Empty(t, a.TakeErrors())
}

// A status with a typo gets a did-you-mean.
func TestTreeStatusTypo(t *testing.T) {
	f := newFixture(t, `
return ai.fsm { initial = "t", states = {
  t = ai.tree { root = ai.action(function(ctx) return "sucess" end) },
} }`)
	a := f.spawn(nil)
	f.tick(a, 0.1)
	require.Len(t, f.se, 1)
	require.Contains(t, f.se[0].Error(), `test.lua:14: ai.action "action" returned "sucess" (did you mean "success"?), not a status`)
}

// A node name cannot carry a line break or a terminal escape into traces,
// nor be longer than 200 bytes.
func TestTreeNodeNamesArePrintable(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	for _, tc := range []struct{ name, want string }{
		{`"a\ntick 3 agent 1 forged"`, "may not contain control characters"},
		{`"\27:31mred"`, "may not contain control characters"},
		{`string.rep("n", 201)`, "name is 201 bytes long, more than 200"},
	} {
		_, err := h.LoadString("names.lua", `local ai = require("luaai")
return ai.fsm { initial = "t", states = { t = ai.tree { root =
  ai.action(function() return "running" end, { name = `+tc.name+` }) } } }`)
		require.ErrorContains(t, err, tc.want)
		require.ErrorContains(t, err, "names.lua:3:")
	}
}

// A save taken while an ai.retry is between tries keeps its failures: the
// restored agent gives up after the retries left, not after a fresh count;
// a reload keeps them too, and a save whose count is past the node's
// retries does not load.
func TestTreeRetrySavedAndReloaded(t *testing.T) {
	const src = `
local function fail(ctx) log(ctx, "try") return "failure" end
return ai.fsm { initial = "t", states = {
  t = ai.tree { root = ai.retry(fail, 3, { name = "again" }), transitions = {
    { on = "tree:failure", run = function(ctx) log(ctx, "gave up") end },
  } },
} }`
	tries := func(f *fixture, a *host.Agent, ticks int) []string {
		var out []string
		for range ticks {
			f.tick(a, 0.1)
			out = append(out, strings.Join(takeLog(a), " ")+" "+a.Path())
		}
		return out
	}
	f := newFixture(t, src)
	a := f.spawn(nil)
	require.Equal(t, []string{"try t[again]", "try t[again]"}, tries(f, a, 2))
	data, err := a.Snapshot()
	require.NoError(t, err)
	require.Contains(t, string(data), `"again":{"running":true,"child":2`, "the failures are saved")

	g := newFixture(t, src)
	restored, err := g.h.Restore(data, g.b)
	require.NoError(t, err)
	require.Equal(t, []string{"try t[again]", "try t", "gave up try t[again]"}, tries(g, restored[0], 3),
		"two failures saved: the third try is the last retry but one")

	require.NoError(t, f.b.ReloadSource(prelude+src))
	require.Equal(t, []string{"try t[again]", "try t", "gave up try t[again]"}, tries(f, a, 3), "a reload keeps the count")

	bad := strings.Replace(string(data), `"child":2`, `"child":4`, 1)
	fresh := newFixture(t, src)
	_, err = fresh.h.Restore([]byte(bad), fresh.b)
	require.ErrorContains(t, err, `tree node "again": child 4 out of range`)
}

// Every kind of tree node has a tick function: a kind added to luabind's
// table without one fails here, not in a game.
func TestEveryTreeKindTicks(t *testing.T) {
	require.Empty(t, host.KindsWithoutTicker())
}
