package luaai_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/hosttool"
	"github.com/luaai/luaai/luabind/defs"
	"github.com/luaai/luaai/luatest"
	"github.com/stretchr/testify/require"
)

func TestGuardSeedTrace(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadFile("scripts/guard.lua")
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	a.Set("waypoint", "found")
	want := []struct{ root, waypoint, player string }{
		{"patrol", "reached", "none"},
		{"patrol", "found", "none"},
		{"combat", "found", "reached"},
		{"combat", "found", "none"},
		{"patrol", "found", "none"},
		{"patrol", "reached", "none"},
	}
	for i, w := range want {
		if i == 2 {
			a.Set("player", "found")
		}
		require.NoError(t, a.Tick(0.1))
		require.True(t, a.Active(w.root), "tick %d: %s", i+1, a.Path())
		wp, _ := a.Text("waypoint")
		pl, _ := a.Text("player")
		require.Equal(t, w.waypoint, wp, "tick %d waypoint", i+1)
		require.Equal(t, w.player, pl, "tick %d player", i+1)
	}
	require.Empty(t, a.TakeErrors())
}

// --- helpers ---

func newHost(t *testing.T, opts host.Options) *host.Host {
	t.Helper()
	h, err := host.New(opts)
	require.NoError(t, err)
	t.Cleanup(h.Close)
	return h
}

func spawnScript(t *testing.T, h *host.Host, script string, overrides map[string]any) *host.Agent {
	t.Helper()
	b, err := h.LoadFile(filepath.Join("scripts", script))
	require.NoError(t, err)
	a, err := h.Spawn(b, overrides)
	require.NoError(t, err)
	return a
}

func num(t *testing.T, a *host.Agent, key string) float64 {
	t.Helper()
	v, ok := a.Number(key)
	require.True(t, ok, "ctx.%s is not a number: %v", key, a.Get(key))
	return v
}

func str(t *testing.T, a *host.Agent, key string) string {
	t.Helper()
	v, ok := a.Text(key)
	require.True(t, ok, "ctx.%s is not a string: %v", key, a.Get(key))
	return v
}

func shippedScripts(t *testing.T) []string {
	t.Helper()
	all, err := filepath.Glob("scripts/*.lua")
	require.NoError(t, err)
	var out []string
	for _, p := range all {
		if !strings.HasSuffix(p, "_test.lua") {
			out = append(out, p)
		}
	}
	require.NotEmpty(t, out)
	return out
}

// --- every script ---

// TestScriptsLua runs every scripts/*_test.lua with the busted-style runner.
func TestScriptsLua(t *testing.T) {
	files, err := filepath.Glob("scripts/*_test.lua")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			h := newHost(t, host.Options{Roots: []string{"scripts"}})
			var buf bytes.Buffer
			res, err := luatest.RunFile(h, path, &buf, luatest.Options{})
			require.NoError(t, err, buf.String())
			t.Logf("%s: %d passed, %d failed", path, res.Passed, res.Failed)
			require.Zero(t, res.Failed, "%s failed:\n%s", path, buf.String())
			require.Positive(t, res.Passed, "%s ran no tests:\n%s", path, buf.String())
		})
	}
}

// TestScriptsLoad: every shipped behaviour loads, validates without
// warnings, spawns and ticks clean with its defaults.
func TestScriptsLoad(t *testing.T) {
	for _, path := range shippedScripts(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			h := newHost(t, host.Options{})
			b, err := h.LoadFile(path)
			require.NoError(t, err)
			require.Empty(t, defs.Warnings(hosttool.Definition(b)), "warnings in %s", path)
			a, err := h.Spawn(b, nil)
			require.NoError(t, err)
			for i := 0; i < 50; i++ {
				require.NoError(t, a.Tick(0.1))
			}
			require.Empty(t, a.TakeErrors())
		})
	}
}

// --- wanderer: the seed's Machinery FSM with state locking ---

func TestWandererSeedTrace(t *testing.T) {
	h := newHost(t, host.Options{})
	a := spawnScript(t, h, "wanderer.lua", nil)

	type step struct {
		state     string
		x, y      float64
		direction string
		turns     float64
	}
	check := func(when string, w step) {
		t.Helper()
		require.Equal(t, w.state, a.Path(), when)
		require.True(t, a.Active(w.state), when)
		require.Equal(t, w.x, num(t, a, "x"), when+" x")
		require.Equal(t, w.y, num(t, a, "y"), when+" y")
		require.Equal(t, w.direction, str(t, a, "direction"), when+" direction")
		require.Equal(t, w.turns, num(t, a, "turns"), when+" turns")
	}
	check("spawn", step{"change_direction", 0, 0, "right", 0})
	for i, w := range []step{
		{"move", 1, 0, "right", 1},
		{"move", 2, 0, "right", 0},
		{"wait", 2, 0, "right", 0},
		{"change_direction", 2, 0, "down", 0},
		{"move", 2, 1, "down", 1},
		{"move", 2, 2, "down", 0},
		{"wait", 2, 2, "down", 0},
		{"change_direction", 2, 2, "left", 0},
	} {
		require.NoError(t, a.Tick(0.1))
		check("tick "+string(rune('1'+i)), w)
	}
	require.Empty(t, a.TakeErrors())
}

func TestWandererOverrides(t *testing.T) {
	h := newHost(t, host.Options{})
	a := spawnScript(t, h, "wanderer.lua", map[string]any{"x": 10, "y": 10, "direction": "down"})
	require.Equal(t, "left", str(t, a, "direction")) // enter ran after the overrides
	require.NoError(t, a.Tick(0.1))
	require.NoError(t, a.Tick(0.1))
	require.Equal(t, 8.0, num(t, a, "x"))
	require.Equal(t, 10.0, num(t, a, "y"))
	require.Equal(t, "move", a.Path())
	require.Empty(t, a.TakeErrors())
}

// --- guard: the seed HFSM, with full paths ---

func TestGuardSeedPaths(t *testing.T) {
	h := newHost(t, host.Options{})
	a := spawnScript(t, h, "guard.lua", nil)
	require.Equal(t, "patrol.find_waypoint", a.Path())
	require.Equal(t, "found", str(t, a, "waypoint"))
	a.Set("waypoint", "found")
	want := []struct{ path, root, waypoint, player string }{
		{"patrol.walk_to_waypoint", "patrol", "reached", "none"},
		{"patrol.find_waypoint", "patrol", "found", "none"},
		{"combat.walk_to_player", "combat", "found", "reached"},
		{"combat.attack_player", "combat", "found", "none"},
		{"patrol.find_waypoint", "patrol", "found", "none"},
		{"patrol.walk_to_waypoint", "patrol", "reached", "none"},
	}
	for i, w := range want {
		if i == 2 {
			a.Set("player", "found")
		}
		require.NoError(t, a.Tick(0.1))
		require.Equal(t, w.path, a.Path(), "tick %d", i+1)
		require.True(t, a.Active(w.root), "tick %d", i+1)
		require.True(t, a.Active(w.path), "tick %d", i+1)
		other := "combat"
		if w.root == "combat" {
			other = "patrol"
		}
		require.False(t, a.Active(other), "tick %d", i+1)
		require.Equal(t, w.waypoint, str(t, a, "waypoint"), "tick %d waypoint", i+1)
		require.Equal(t, w.player, str(t, a, "player"), "tick %d player", i+1)
	}
	require.Empty(t, a.TakeErrors())
}

func TestGuardTransitionsReported(t *testing.T) {
	var got []host.Transition
	h := newHost(t, host.Options{OnTransition: func(tr host.Transition) { got = append(got, tr) }})
	a := spawnScript(t, h, "guard.lua", map[string]any{"player": "found"})
	require.NoError(t, a.Tick(0.1))
	require.NotEmpty(t, got)
	last := got[len(got)-1]
	require.Equal(t, host.TransitionTo, last.Kind)
	require.Equal(t, "patrol", last.From)
	require.Equal(t, "combat", last.To)
	require.Equal(t, 1, last.Tick)
	require.Equal(t, "combat.walk_to_player", a.Path())
	require.Empty(t, a.TakeErrors())
}

// --- gatherer: the seed Utility AI ---

type gatherStep struct {
	state                                 string
	hunger, food, trees, wood, opp, power float64
}

func checkGatherer(t *testing.T, a *host.Agent, when string, w gatherStep) {
	t.Helper()
	require.Equal(t, w.state, a.Path(), when)
	require.True(t, a.Active(w.state), when)
	require.Equal(t, w.hunger, num(t, a, "hunger"), when+" hunger")
	require.Equal(t, w.food, num(t, a, "distance_to_food"), when+" distance_to_food")
	require.Equal(t, w.trees, num(t, a, "distance_to_trees"), when+" distance_to_trees")
	require.Equal(t, w.wood, num(t, a, "wood_needed"), when+" wood_needed")
	require.Equal(t, w.opp, num(t, a, "distance_to_opponent"), when+" distance_to_opponent")
	require.Equal(t, w.power, num(t, a, "opponent_strength"), when+" opponent_strength")
}

func TestGathererSeedTrace(t *testing.T) {
	var decisions []host.Decision
	h := newHost(t, host.Options{OnDecision: func(d host.Decision) { decisions = append(decisions, d) }})
	a := spawnScript(t, h, "gatherer.lua", nil)
	checkGatherer(t, a, "spawn", gatherStep{"idle", 0, 1, 1, 0, 1, 0})

	a.Set("hunger", 0.5)
	a.Set("distance_to_food", 0.9)
	a.Set("distance_to_trees", 0.5)
	a.Set("opponent_strength", 0.2)

	gathererSeedTicks(t, a)

	// The scores behind the first decision, as the seed computes them.
	require.Len(t, decisions, 4)
	d := decisions[0]
	require.Equal(t, "", d.Machine)
	require.Equal(t, "attack_opponent", d.Winner)
	scores := map[string]float64{}
	for _, c := range d.Candidates {
		scores[c.State] = c.Score
	}
	require.InDelta(t, 0.2, scores["attack_opponent"], 1e-12)
	require.InDelta(t, 0.05, scores["gather_food"], 1e-12)
	require.InDelta(t, 0.0, scores["gather_wood"], 1e-12)
	require.InDelta(t, 0.001, scores["idle"], 1e-12)
	require.Equal(t, "gather_wood", decisions[2].Winner)
	require.Equal(t, "idle", decisions[3].Winner)
}

// The Reasoner variant: no initial, Lua function scorers.
const reasonerSrc = `
local ai = require("luaai")
return ai.utility {
  context = {
    hunger = 0.0, distance_to_food = 1.0, distance_to_trees = 1.0,
    wood_needed = 0, distance_to_opponent = 1.0, opponent_strength = 0.0,
  },
  states = {
    idle = { score = function() return 0.001 end },
    gather_food = {
      score = function(ctx) return ctx.hunger * (1 - ctx.distance_to_food) end,
      enter = function(ctx) ctx.hunger = 0.0; ctx.distance_to_food = 1.0 end,
    },
    gather_wood = {
      score = function(ctx) return (ctx.wood_needed > 0 and 1 or 0) * (1 - ctx.distance_to_trees) end,
      enter = function(ctx) ctx.wood_needed = math.max(ctx.wood_needed, 1) - 1; ctx.distance_to_trees = 1.0 end,
    },
    attack_opponent = {
      score = function(ctx) return (1 - ctx.distance_to_opponent) + ctx.opponent_strength end,
      enter = function(ctx) ctx.distance_to_opponent = 1.0; ctx.opponent_strength = 0.0 end,
    },
  },
}
`

func TestGathererReasonerVariant(t *testing.T) {
	h := newHost(t, host.Options{})
	b, err := h.LoadString("reasoner.lua", reasonerSrc)
	require.NoError(t, err)
	a, err := h.Spawn(b, map[string]any{"hunger": 0.5, "distance_to_food": 0.9, "distance_to_trees": 0.5, "opponent_strength": 0.2})
	require.NoError(t, err)
	_, ok := a.State()
	require.False(t, ok, "nothing is active before the first decision")
	require.Equal(t, "", a.Path())
	require.False(t, a.Active("idle"))

	gathererSeedTicks(t, a)
}

// --- sentry: seed 002's pushdown guard ---

func TestSentryPushPop(t *testing.T) {
	var trs []host.Transition
	h := newHost(t, host.Options{OnTransition: func(tr host.Transition) { trs = append(trs, tr) }})
	a := spawnScript(t, h, "sentry.lua", map[string]any{"log": []any{}})
	const dt = 0.25
	tick := func(n int) {
		t.Helper()
		for i := 0; i < n; i++ {
			require.NoError(t, a.Tick(dt))
		}
	}
	stack := func() []string {
		t.Helper()
		s, err := a.Stack("")
		require.NoError(t, err)
		return s
	}

	require.Equal(t, "patrolling", a.Path())
	tick(4)
	require.Equal(t, 1.0, num(t, a, "x"))
	require.Equal(t, 1.0, num(t, a, "patrol_updates"))

	a.Send("noise", 3)
	tick(1) // 5: push
	require.Equal(t, "go_see_disturbance", a.Path())
	require.Equal(t, []string{"patrolling", "go_see_disturbance"}, stack())
	require.True(t, a.Active("patrolling"))
	require.Equal(t, 3.0, num(t, a, "disturbance"))
	require.Equal(t, 1.0, num(t, a, "pauses"))

	xs := []float64{}
	for i := 0; i < 4; i++ { // 6..9: timed walk, every 0.5 s at 2 cells/s
		tick(1)
		xs = append(xs, num(t, a, "x"))
	}
	require.Equal(t, []float64{1, 2, 2, 3}, xs)
	require.Equal(t, "go_see_disturbance", a.Path(), "ai.pop is deferred to the next tick")

	tick(1) // 10: pop applied
	require.Equal(t, "patrolling", a.Path())
	require.Equal(t, []string{"patrolling"}, stack())
	require.Equal(t, 1.0, num(t, a, "resumes"))
	d, ok := a.Bool("disturbance")
	require.True(t, ok)
	require.False(t, d)

	tick(3) // 13: patrolling's first update after the pause
	require.Equal(t, 2.0, num(t, a, "patrol_updates"))
	require.Equal(t, 2.0, num(t, a, "patrol_time"), "patrolling's time is frozen while paused")
	require.InDelta(t, 3.25, a.Clock(), 1e-12)
	require.Equal(t, 2.0, num(t, a, "x"))

	require.Equal(t, []any{
		"patrolling.enter", "patrolling.update", "patrolling.pause", "go_see_disturbance.enter",
		"go_see_disturbance.update", "go_see_disturbance.update", "go_see_disturbance.exit",
		"patrolling.resume", "patrolling.update",
	}, a.Get("log"))

	var kinds []string
	for _, tr := range trs {
		kinds = append(kinds, string(tr.Kind)+" "+tr.From+" -> "+tr.To)
	}
	require.Equal(t, []string{
		"spawn  -> patrolling",
		"push patrolling -> go_see_disturbance",
		"pop go_see_disturbance -> patrolling",
	}, kinds)
	require.Equal(t, 0, trs[0].Tick)
	require.Equal(t, 5, trs[1].Tick)
	require.Equal(t, 10, trs[2].Tick)
	require.Empty(t, a.TakeErrors())
}

func TestSentryGivesUp(t *testing.T) {
	h := newHost(t, host.Options{})
	a := spawnScript(t, h, "sentry.lua", nil)
	for i := 0; i < 4; i++ {
		require.NoError(t, a.Tick(0.25))
	}
	a.Send("noise", 6)
	for i := 0; i < 8; i++ { // 5..12
		require.NoError(t, a.Tick(0.25))
	}
	require.Equal(t, "go_see_disturbance", a.Path())
	require.Equal(t, 4.0, num(t, a, "x"))
	require.NoError(t, a.Tick(0.25)) // 13: after = 2
	require.Equal(t, "patrolling", a.Path())
	require.Equal(t, 4.0, num(t, a, "x"))
	require.Equal(t, 1.0, num(t, a, "resumes"))
	require.Empty(t, a.TakeErrors())
}

func TestSentryDeaf(t *testing.T) {
	h := newHost(t, host.Options{})
	a := spawnScript(t, h, "sentry.lua", map[string]any{"hearing": 1})
	a.Send("noise", 2)
	a.Send("noise", map[string]any{"x": 1})
	require.NoError(t, a.Tick(0.25))
	require.Equal(t, "patrolling", a.Path())
	require.NoError(t, a.Tick(0.25))
	require.Equal(t, "patrolling", a.Path(), "unheard events are dropped")
	require.Equal(t, 0.0, num(t, a, "pauses"))
	require.Empty(t, a.TakeErrors())
}

// Many sentries ticked by the host stay independent.
func TestSentryMany(t *testing.T) {
	h := newHost(t, host.Options{})
	b, err := h.LoadFile("scripts/sentry.lua")
	require.NoError(t, err)
	var agents []*host.Agent
	for i := 0; i < 3; i++ {
		a, err := h.Spawn(b, nil)
		require.NoError(t, err)
		agents = append(agents, a)
	}
	agents[1].Send("noise", 2)
	require.NoError(t, h.Tick(0.25))
	require.Equal(t, "patrolling", agents[0].Path())
	require.Equal(t, "go_see_disturbance", agents[1].Path())
	require.Equal(t, "patrolling", agents[2].Path())
	for _, a := range agents {
		require.Empty(t, a.TakeErrors())
	}
}

// gathererSeedTicks runs the seed utility trace's four ticks (after the
// context was set as the seed sets it) and checks every asserted value.
func gathererSeedTicks(t *testing.T, a *host.Agent) {
	t.Helper()
	require.NoError(t, a.Tick(0.1))
	checkGatherer(t, a, "tick 1", gatherStep{"attack_opponent", 0.5, 0.9, 0.5, 0, 1, 0})
	require.NoError(t, a.Tick(0.1))
	checkGatherer(t, a, "tick 2", gatherStep{"gather_food", 0, 1, 0.5, 0, 1, 0})
	a.Set("wood_needed", 1)
	require.NoError(t, a.Tick(0.1))
	checkGatherer(t, a, "tick 3", gatherStep{"gather_wood", 0, 1, 1, 0, 1, 0})
	require.NoError(t, a.Tick(0.1))
	checkGatherer(t, a, "tick 4", gatherStep{"idle", 0, 1, 1, 0, 1, 0})
	require.Empty(t, a.TakeErrors())
}

// --- hunter and soldier: trees, steps, regions and messages ---

// battle is a 200-tick scenario for the hunter and the soldier: a squad
// leader (agent 1) with three soldiers (2-4) talking by messages, and two
// hunters (5, 6) with prey that comes, goes and hurts. Every new construct
// is busy at some point: roaming steps, the combat tree (chase, strike,
// cooldown, flee), loot steps, the regions, reloading steps, internal
// transitions on messages.
type battle struct {
	hunter, soldier *host.Behaviour
}

const battleTicks = 200

func loadBattle(t *testing.T, h *host.Host) battle {
	t.Helper()
	var bt battle
	var err error
	bt.hunter, err = h.LoadFile("scripts/hunter.lua")
	require.NoError(t, err)
	bt.soldier, err = h.LoadFile("scripts/soldier.lua")
	require.NoError(t, err)
	return bt
}

func (bt battle) spawn(t *testing.T, h *host.Host) {
	t.Helper()
	_, err := h.Spawn(bt.soldier, map[string]any{"squad": []any{2, 3, 4}})
	require.NoError(t, err)
	for i := range 3 {
		_, err := h.Spawn(bt.soldier, map[string]any{"leader": 1, "x": float64(i)})
		require.NoError(t, err)
	}
	for range 2 {
		_, err := h.Spawn(bt.hunter, nil)
		require.NoError(t, err)
	}
}

// inputs is what the game does before tick n (1-based).
func (battle) inputs(t *testing.T, h *host.Host, n int) {
	t.Helper()
	agent := func(id int) *host.Agent {
		a, ok := h.Agent(id)
		require.True(t, ok)
		return a
	}
	set := func(id int, kv ...any) {
		for i := 0; i < len(kv); i += 2 {
			require.NoError(t, agent(id).Set(kv[i].(string), kv[i+1]))
		}
	}
	switch n {
	case 5:
		set(2, "enemy_x", 4.0)
	case 10:
		set(5, "prey_x", 5.0, "prey_hp", 3)
	case 20:
		set(6, "prey_x", 2.0)
	case 30:
		require.NoError(t, agent(3).Send("under_fire", nil))
	case 50:
		set(6, "prey_x", 40.0)
	case 60:
		set(2, "enemy_x", false)
	case 70:
		set(5, "prey_x", 8.0, "prey_hp", 2)
	case 100:
		set(4, "enemy_x", 2.0)
	case 106:
		x, _ := agent(5).Number("x")
		set(5, "prey_x", x+2, "prey_hp", 9)
	case 110:
		set(5, "health", 1)
	case 140:
		set(5, "health", 10)
	case 150:
		require.NoError(t, agent(4).Send("killed", nil))
	}
}

// run ticks h from tick from+1 to battleTicks and returns one line per
// agent-tick: its id and path.
func (bt battle) run(t *testing.T, h *host.Host, from int) []string {
	t.Helper()
	var out []string
	for n := from + 1; n <= battleTicks; n++ {
		bt.inputs(t, h, n)
		require.NoError(t, h.Tick(0.25))
		for _, a := range h.Agents() {
			out = append(out, fmt.Sprintf("%d %d %s", n, a.ID(), a.Path()))
		}
	}
	return out
}

func battleHost(t *testing.T, workers int) *host.Host {
	return newHost(t, host.Options{Workers: workers, Budget: -1, MemoryLimit: -1, BudgetSteps: 1e7})
}

// TestBattleVisitsEverything: the scenario reaches the constructs it is
// meant to exercise, with no callback error.
func TestBattleVisitsEverything(t *testing.T) {
	h := battleHost(t, 1)
	bt := loadBattle(t, h)
	bt.spawn(t, h)
	trace := strings.Join(bt.run(t, h, 0), "\n")
	for _, want := range []string{
		"5 roam", "combat[reactive_selector.fight.engage.chase]", "5 loot", "combat[reactive_selector.flee.run_away]",
		"6 combat", "movement.advance", "movement.take_cover", "weapon.firing", "weapon.reloading", "4 down",
	} {
		require.True(t, strings.Contains(trace, want), "the run never shows %q", want)
	}
	leader, _ := h.Agent(1)
	require.Positive(t, num(t, leader, "contacts"))
	require.Positive(t, num(t, leader, "orders"))
	hunter, _ := h.Agent(5)
	require.Positive(t, num(t, hunter, "strikes"))
	require.Positive(t, num(t, hunter, "loot"))
	for _, a := range h.Agents() {
		require.Empty(t, a.TakeErrors(), "agent %d", a.ID())
	}
}

// TestBattleSnapshotEveryTick stops the run at every tick, restores it in
// a fresh host and checks that the continued trace and the final state are
// those of the straight run.
func TestBattleSnapshotEveryTick(t *testing.T) {
	h := battleHost(t, 1)
	bt := loadBattle(t, h)
	bt.spawn(t, h)
	straight := bt.run(t, h, 0)
	final, err := h.Snapshot()
	require.NoError(t, err)

	h = battleHost(t, 1)
	bt = loadBattle(t, h)
	bt.spawn(t, h)
	step := 1
	if testing.Short() {
		step = 17
	}
	for k := 0; k < battleTicks; k++ {
		if k > 0 {
			bt.inputs(t, h, k)
			require.NoError(t, h.Tick(0.25))
		}
		if k%step != 0 {
			continue
		}
		snap, err := h.Snapshot()
		require.NoError(t, err)
		g, err := host.New(host.Options{Budget: -1, MemoryLimit: -1, BudgetSteps: 1e7}) // closed below, not kept to the end
		require.NoError(t, err)
		gb := loadBattle(t, g)
		_, err = g.Restore(snap, gb.hunter, gb.soldier)
		require.NoError(t, err, "tick %d", k)
		got := gb.run(t, g, k)
		require.Equal(t, straight[k*6:], got, "continued from tick %d", k)
		end, err := g.Snapshot()
		require.NoError(t, err)
		require.JSONEq(t, string(final), string(end), "final state, continued from tick %d", k)
		g.Close()
	}
}

// TestBattleWorkers: the same run with 1, 2 and 4 workers, messages flying
// between agents on different workers, gives the same states and contexts.
func TestBattleWorkers(t *testing.T) {
	var want []string
	var wantSnap []byte
	for _, workers := range []int{1, 2, 4} {
		h := battleHost(t, workers)
		bt := loadBattle(t, h)
		bt.spawn(t, h)
		got := bt.run(t, h, 0)
		snap, err := h.Snapshot()
		require.NoError(t, err)
		if want == nil {
			want, wantSnap = got, snap
			continue
		}
		require.Equal(t, want, got, "%d workers", workers)
		require.JSONEq(t, string(wantSnap), string(snap), "%d workers", workers)
	}
}

// TestBattleReload reloads both scripts unchanged every 7 ticks (mid-tree,
// mid-steps, inside regions): the run is the straight run. Then an edit
// that renames the hunter's strike sequence restarts a tree whose running
// path went through it, and keeps one that did not.
func TestBattleReload(t *testing.T) {
	h := battleHost(t, 1)
	bt := loadBattle(t, h)
	bt.spawn(t, h)
	straight := bt.run(t, h, 0)

	h = battleHost(t, 1)
	bt = loadBattle(t, h)
	bt.spawn(t, h)
	var got []string
	for n := 1; n <= battleTicks; n++ {
		if n%7 == 0 {
			require.NoError(t, bt.hunter.Reload())
			require.NoError(t, bt.soldier.Reload())
		}
		bt.inputs(t, h, n)
		require.NoError(t, h.Tick(0.25))
		for _, a := range h.Agents() {
			got = append(got, fmt.Sprintf("%d %d %s", n, a.ID(), a.Path()))
		}
	}
	require.Equal(t, straight, got)

	src, err := os.ReadFile("scripts/hunter.lua")
	require.NoError(t, err)
	rename := func(from, to string) string {
		out := strings.Replace(string(src), `name = "`+from+`"`, `name = "`+to+`"`, 1)
		require.NotEqual(t, string(src), out)
		return out
	}
	g := battleHost(t, 1)
	b, err := g.LoadFile("scripts/hunter.lua")
	require.NoError(t, err)
	chasing, err := g.Spawn(b, map[string]any{"prey_x": 4.0})
	require.NoError(t, err)
	require.NoError(t, g.Tick(0.25))
	require.Equal(t, "combat[reactive_selector.fight.engage.chase]", chasing.Path())
	require.NoError(t, b.ReloadSource(rename("flee", "escape")))
	require.Equal(t, "combat[reactive_selector.fight.engage.chase]", chasing.Path(), "its running path still exists: kept")
	require.NoError(t, b.ReloadSource(rename("engage", "close_in")))
	require.Equal(t, "combat", chasing.Path(), "its running path is gone: the tree starts again at its root")
	require.NoError(t, g.Tick(0.25))
	require.Equal(t, "combat[reactive_selector.fight.close_in.chase]", chasing.Path())
	require.Empty(t, chasing.TakeErrors())
}
