package inspect

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/luaai/luaai/luabind/defs"
	"github.com/stretchr/testify/require"
)

// The CLI's golden files (cmd/luaai/testdata/golden) cover whole diagrams;
// these cover the pieces.

func graphOf(t *testing.T, src, format string) string {
	t.Helper()
	var b strings.Builder
	require.NoError(t, WriteGraph(&b, lintDef(t, src), "g.lua", format))
	return b.String()
}

func TestGraphFormats(t *testing.T) {
	var b strings.Builder
	err := WriteGraph(&b, &defs.State{Kind: defs.KindFSM}, "x", "png")
	require.ErrorContains(t, err, `unknown format "png"`)
	require.Error(t, WriteGraph(&b, nil, "x", GraphDOT))
	require.Empty(t, b.String())

	src := `local ai = require("luaai")
return ai.fsm { initial = "a", states = { a = { transitions = { { to = "b", on = "go" } } }, b = {} } }`
	require.Equal(t, graphOf(t, src, ""), graphOf(t, src, GraphDOT), "dot is the default")
}

func TestGraphMermaidIDs(t *testing.T) {
	out := graphOf(t, `local ai = require("luaai")
return ai.fsm { initial = "state",
  states = {
    state = { transitions = { { to = "x" } } },             -- a keyword
    x = ai.fsm { initial = "y", states = { y = {}, x_y = {} } },
    s_x_y = {},                                             -- the id x.y would get
    y = { transitions = { { pop = true } } },                 -- clashes with x.y
    previous = {},                                          -- the pop pseudo-state's id
  } }`, GraphMermaid)
	for _, line := range []string{
		`  [*] --> s_state`,
		`  state "state" as s_state`,
		`  state x {`,
		`  s_x_y`, // first in pre-order: the top-level s_x_y keeps its name
		`    [*] --> s_x_y_2`,
		`    state "y" as s_x_y_2`,
		`    x_y`,
		`  state "y" as s_y`,
		`  previous`,
		`  state "(previous)" as previous_2`,
		`  s_state --> x`,
		`  s_y --> previous_2 : pop`,
	} {
		require.Contains(t, out, line+"\n")
	}
}

func TestGraphEscaping(t *testing.T) {
	src := `local ai = require("luaai")
return ai.fsm { initial = "a", states = {
  a = { transitions = { { to = "a", when = ai.eq("m", "say \"hi\"; a:b #1\\n") } } } } }`
	dot := graphOf(t, src, GraphDOT)
	require.Contains(t, dot, `[label="when eq(m, \"say \\\"hi\\\"; a:b #1\\\\n\")"]`)
	mmd := graphOf(t, src, GraphMermaid)
	require.Contains(t, mmd, `  a --> a : when eq(m, "say \"hi\"#59; a#58;b #35;1\\n")`+"\n")
}

func TestGraphLabels(t *testing.T) {
	require.Equal(t, []string{"push", "on noise", "after 2s", "when is(x)"},
		transitionLabel(defs.Transition{Kind: defs.Push, Target: "b", On: "noise", After: 2, When: nativeOf(t, `ai.is("x")`).(defs.Cond)}))
	require.Empty(t, transitionLabel(defs.Transition{Kind: defs.To, Target: "b", When: defs.ConstCond(true)}))
	require.Equal(t, []string{"pop", "when false"}, transitionLabel(defs.Transition{Kind: defs.Pop, When: defs.ConstCond(false)}))
	require.Equal(t, "m (utility, history, decide_every 0.25s, random_top 3, momentum 0.5)",
		machineTitle("m", &defs.State{Kind: defs.KindUtility, History: true, DecideEvery: 0.25, RandomTop: 3, Momentum: 0.5}))
}

// Tree node names may hold spaces, quotes and arrows: the Mermaid ids are
// made of letters, digits and _ only, so a name cannot forge a line.
func TestGraphMermaidTreeNames(t *testing.T) {
	out := graphOf(t, `local ai = require("luaai")
return ai.fsm { initial = "t", states = { t = ai.tree { root = ai.sequence {
  ai.action(function() return "success" end, { name = "a --> b : x %% y" }),
  ai.action(function() return "success" end, { name = "q\"uote" }),
  name = "root seq" } } } }`, GraphMermaid)
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "state \"") {
			continue // a quoted label: strconv.Quote keeps it one string
		}
		require.NotContains(t, line, "b : x", line)
	}
	require.Contains(t, out, "state \"action a --> b : x %% y fn@lint.lua:3\" as t_root_seq_a_____b___x____y\n")
	require.Contains(t, out, "t_root_seq --> t_root_seq_a_____b___x____y : 1\n")
}

// Every decorator is drawn with its label: kinds added to luabind's table
// need nothing here.
func TestGraphTreeDecorators(t *testing.T) {
	out := graphOf(t, `local ai = require("luaai")
return ai.fsm { initial = "t", states = {
  t = ai.tree { root = ai.sequence { ai.retry(function() return "failure" end, 3, { name = "again" }),
    ai.retry(function() return true end), ai.loop(function() return true end, 2) } },
} }`, GraphDOT)
	for _, label := range []string{`"retry again ×3"`, `"retry forever"`, `"loop ×2"`} {
		require.Contains(t, out, "[label="+label+", shape=box, style=\"rounded,filled\"")
	}
}

// In DOT a tree's children are drawn top to bottom in their order: Graphviz
// would stack them bottom-up, and an invisible chain from the last child
// to the first, on one rank, turns them over. Graphviz itself checks the
// layout when it is installed.
func TestGraphDOTTreeChildrenInOrder(t *testing.T) {
	src := `local ai = require("luaai")
local function f() return "success" end
return ai.fsm { initial = "fight", states = { fight = ai.tree {
  root = ai.selector {
    ai.sequence { ai.action(f, { name = "a1" }), ai.action(f, { name = "a2" }), name = "A" },
    ai.action(f, { name = "B" }),
    ai.action(f, { name = "C" }),
  } } } }`
	out := graphOf(t, src, GraphDOT)
	require.Contains(t, out, `{ rank=same; "fight[selector.C]" -> "fight[selector.B]" -> "fight[selector.A]" [style=invis]; }`)
	require.Contains(t, out, `{ rank=same; "fight[selector.A.a2]" -> "fight[selector.A.a1]" [style=invis]; }`)
	dot, err := exec.LookPath("dot")
	if err != nil {
		return // the text above is the promise; the layout is Graphviz's
	}
	cmd := exec.Command(dot, "-Tplain")
	cmd.Stdin = strings.NewReader(out)
	plain, err := cmd.Output()
	require.NoError(t, err)
	y := map[string]float64{}
	for _, l := range strings.Split(string(plain), "\n") {
		f := strings.Fields(l)
		if len(f) > 3 && f[0] == "node" {
			y[strings.Trim(f[1], `"`)], _ = strconv.ParseFloat(f[3], 64)
		}
	}
	// -Tplain's y grows upwards: the first child is the highest.
	require.Greater(t, y["fight[selector.A]"], y["fight[selector.B]"])
	require.Greater(t, y["fight[selector.B]"], y["fight[selector.C]"])
	require.Greater(t, y["fight[selector.A.a1]"], y["fight[selector.A.a2]"])
}

// A step function is named with ai.action(fn, { name = … }): graphs show
// the name, and it runs as the function would.
func TestGraphNamedSteps(t *testing.T) {
	src := `local ai = require("luaai")
local function roar(ctx) end
return ai.fsm { initial = "rest", states = { rest = { steps = { ai.action(roar, { name = "roar" }), ai.wait(2), roar } } } }`
	out := graphOf(t, src, GraphDOT)
	require.Contains(t, out, `steps: roar, wait 2s, fn@lint.lua:2`)
}
