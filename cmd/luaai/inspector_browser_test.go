package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// browser starts headless Chromium for a test, or skips it when there is
// none (LUAAI_REQUIRE_BROWSER=1, which .ci/run sets, makes that a failure).
func browser(t *testing.T) context.Context {
	t.Helper()
	var path string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		if os.Getenv("LUAAI_REQUIRE_BROWSER") != "" {
			t.Fatal("no Chromium found, and LUAAI_REQUIRE_BROWSER is set (apt-get install chromium)")
		}
		t.Skip("no Chromium found: the inspector's browser tests need it (apt-get install chromium; .ci/run installs it)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.WindowSize(1400, 1000))
	alloc, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(cancel)
	// No deadline of its own: on a busy machine the page takes what it
	// takes; a page that never gets there fails at go test's -timeout.
	return ctx
}

var inspectorAt = regexp.MustCompile(`inspector at (http://\S+)`)

// startInspected starts "luaai run … --inspect 127.0.0.1:0" and returns its
// page's address.
func startInspected(t *testing.T, args ...string) (*bgRun, string) {
	t.Helper()
	r := startRun(t, append(args, "--inspect", "127.0.0.1:0")...)
	r.waitFor(t, "the inspector's address", func(_, stderr string) bool { return inspectorAt.MatchString(stderr) })
	return r, inspectorAt.FindStringSubmatch(r.stderr.String())[1]
}

// poll waits until the JavaScript expression is true in the page.
func poll(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(0), chromedp.WithPollingInterval(50*time.Millisecond)))
	require.NoError(t, err, "waiting for %s: %s", what, expr)
}

func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	require.NoError(t, err, expr)
	return v
}

// TestInspectorInBrowser drives the page in headless Chromium against a
// real run: pick an agent, see its path, pause, step, send an event and
// see the transition, slide back to an earlier tick, read a score table.
func TestInspectorInBrowser(t *testing.T) {
	ctx := browser(t)
	r, url := startInspected(t, "../../scripts/sentry.lua", "--agents", "3", "--hz", "20")

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url)))
	poll(t, ctx, "the list", `document.querySelectorAll('#agents tbody tr').length === 3`)
	// Found and clicked in one step of the page's own: the list is redrawn
	// every frame, and a node found by one request may be gone by the next.
	poll(t, ctx, "agent 2 picked", `(() => {
		const b = document.querySelector('#agents tr[data-id="2"] input.pick');
		if (!b) return false;
		if (!b.checked) b.click();
		return true;
	})()`)
	poll(t, ctx, "agent 2's view", `(document.querySelector('.agent-view[data-id="2"] .path')||{}).textContent === 'patrolling'`)
	poll(t, ctx, "its diagram with the active state", `!!document.querySelector('.agent-view[data-id="2"] .state.active[data-path="patrolling"]')`)
	poll(t, ctx, "its context", `!!document.querySelector('.agent-view[data-id="2"] .ctx [data-key="hearing"]')`)

	// Pause: the tick stops moving. The proof is below: from here, the
	// three stepped ticks are the only ones (a tick while paused would put
	// the count past paused+3), whatever time the page takes.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#pause"))))
	poll(t, ctx, "paused", `document.querySelector('#status').dataset.paused === 'true'`)
	tick := eval[string](t, ctx, `document.querySelector('#status').dataset.tick`)
	paused, err := strconv.Atoi(tick)
	require.NoError(t, err)

	// Send the noise to the picked agent, then step three ticks: the
	// event is taken at the first and pushes go_see_disturbance.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS("#send-event"), "noise"),
		chromedp.SendKeys(chromedp.CSS("#send-payload"), "2"),
		chromedp.Click(chromedp.CSS("#send-btn")),
	))
	poll(t, ctx, "the send queued", `/send: (queued|done)/.test(document.querySelector('#messages').textContent)`)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS("#step-n"), "3"),
		chromedp.Click(chromedp.CSS("#step")),
	))
	poll(t, ctx, "three ticks stepped", `Number(document.querySelector('#status').dataset.tick) >= `+strconv.Itoa(paused+3))
	assert.Equal(t, strconv.Itoa(paused+3), eval[string](t, ctx, `document.querySelector('#status').dataset.tick`), "no tick while paused but the three stepped")
	poll(t, ctx, "the transition", `document.querySelector('.agent-view[data-id="2"] .path').textContent === 'go_see_disturbance'`)
	poll(t, ctx, "the paused state on the stack", `!!document.querySelector('.agent-view[data-id="2"] .state.on-stack[data-path="patrolling"]')`)
	r.waitFor(t, "the transition on stdout", func(stdout, _ string) bool {
		return regexp.MustCompile(`agent 2 patrolling -> go_see_disturbance`).MatchString(stdout)
	})

	// The slider back to the tick before the send: the agent patrols there.
	back := paused - 1
	require.NoError(t, chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector('#slider'); s.value = `+strconv.Itoa(back)+`; s.dispatchEvent(new Event('input')); })()`)))
	poll(t, ctx, "the earlier tick", `(() => { const v = document.querySelector('.agent-view.past[data-id="2"]'); return v && v.dataset.tick === '`+strconv.Itoa(back)+`' && v.querySelector('.path').textContent === 'patrolling'; })()`)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#live"))))
	poll(t, ctx, "live again", `!document.querySelector('.agent-view.past') && document.querySelector('.agent-view[data-id="2"] .path').textContent === 'go_see_disturbance'`)

	// Set a context value on every agent.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS("#set-target"), "*"),
		chromedp.SendKeys(chromedp.CSS("#set-path"), "hearing"),
		chromedp.SendKeys(chromedp.CSS("#set-value"), "42"),
		chromedp.Click(chromedp.CSS("#set-btn")),
	))
	poll(t, ctx, "the set", `/= 42$/.test(document.querySelector('.agent-view[data-id="2"] .ctx [data-key="hearing"]').textContent)`)

	// Resume.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#resume"))))
	poll(t, ctx, "running", `document.querySelector('#status').dataset.paused === 'false' && +document.querySelector('#status').dataset.tick > `+strconv.Itoa(paused+4))
	assert.Equal(t, exitOK, r.stop(t))
}

// TestInspectorScoresInBrowser reads a utility decision's score table and
// filters the list, and makes the README's screenshot when
// LUAAI_SCREENSHOT names a file.
func TestInspectorScoresInBrowser(t *testing.T) {
	ctx := browser(t)
	r, url := startInspected(t, "../../scripts/gatherer.lua", "--agents", "40", "--hz", "20", "--set", "hunger=0.8", "--set", "distance_to_food=0.4", "--set", "wood_needed=3", "--set", "distance_to_trees=0.5", "--set", "opponent_strength=0.3")
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url+"?agents=1,2")))
	poll(t, ctx, "the list of 40", `/of 40 agents/.test(document.querySelector('#list-count').textContent)`)
	poll(t, ctx, "a score table", `document.querySelectorAll('.agent-view[data-id="1"] table.scores tr').length === 4`)
	names := eval[[]string](t, ctx, `[...document.querySelectorAll('.agent-view[data-id="1"] table.scores tr')].map(r => r.children[0].textContent)`)
	assert.ElementsMatch(t, []string{"idle", "gather_food", "gather_wood", "attack_opponent"}, names)
	winner := eval[string](t, ctx, `document.querySelector('.agent-view[data-id="1"] table.scores tr.winner').dataset.state`)
	path := eval[string](t, ctx, `document.querySelector('.agent-view[data-id="1"] .path').textContent`)
	assert.Contains(t, []string{path, ""}, winner, "the winner is the state it is in (or the decision is a tick ahead)")
	score := eval[string](t, ctx, `document.querySelector('.agent-view[data-id="1"] table.scores tr.winner td.score').textContent`)
	_, err := strconv.ParseFloat(score, 64)
	assert.NoError(t, err, "a score is a number: %q", score)
	poll(t, ctx, "two agents side by side", `document.querySelectorAll('.agent-view').length === 2`)

	// The filter narrows the list to the agents in one state.
	require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#filter"), "zzz_no_such_state")))
	poll(t, ctx, "an empty match", `/^0 of 40 agents/.test(document.querySelector('#list-count').textContent)`)
	require.NoError(t, chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`(() => { const f = document.querySelector('#filter'); f.value = ''; f.dispatchEvent(new Event('input')); })()`)))
	poll(t, ctx, "the list back", `/^40 of 40 agents/.test(document.querySelector('#list-count').textContent)`)

	if out := os.Getenv("LUAAI_SCREENSHOT"); out != "" {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		require.NoError(t, err)
		if !filepath.IsAbs(out) {
			out = filepath.Join("..", "..", out)
		}
		require.NoError(t, os.WriteFile(out, png, 0o644))
	}
	assert.Equal(t, exitOK, r.stop(t))
}

// A behaviour tree's running node, the roaming steps and a soldier's
// regions show on the page.
func TestInspectorTreesInBrowser(t *testing.T) {
	ctx := browser(t)
	// The prey comes at tick 3, and the run pauses after tick 2 (--ticks
	// with --inspect): the roaming is there to see however late the page
	// comes, and the page's resume lets the prey in.
	input := filepath.Join(t.TempDir(), "prey.jsonl")
	require.NoError(t, os.WriteFile(input, []byte(`{"tick":3,"agent":"*","set":{"prey_x":14}}`+"\n"), 0o644))
	r, url := startInspected(t, "../../scripts/hunter.lua", "--agents", "1", "--hz", "10", "--ticks", "2", "--set", "patrol_end=100", "--set", "waypoint=100", "--input", input)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url+"?agents=1")))
	poll(t, ctx, "roaming steps, the walk item current", `(() => { const s = document.querySelector('.agent-view[data-id="1"] .state[data-path="roam"] .step.active'); return !!s && /^fn@/.test(s.textContent); })()`)
	poll(t, ctx, "paused after tick 2", `document.querySelector('#status').dataset.paused === 'true' && document.querySelector('#status').dataset.tick === '2'`)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#resume"))))
	poll(t, ctx, "the tree drawn", `document.querySelectorAll('.agent-view[data-id="1"] .bt').length === 12`)
	poll(t, ctx, "the chase running, its ancestors too", `(() => {
		const on = [...document.querySelectorAll('.agent-view[data-id="1"] .bt.active')].map(b => b.dataset.path);
		return on.includes('combat[reactive_selector.fight.engage.chase]') && on.includes('combat[reactive_selector.fight]') && !on.includes('combat[reactive_selector.flee]');
	})()`)
	path := eval[string](t, ctx, `document.querySelector('.agent-view[data-id="1"] .path').textContent`)
	assert.Equal(t, "combat[reactive_selector.fight.engage.chase]", path)
	assert.Equal(t, exitOK, r.stop(t))

	enemy := filepath.Join(t.TempDir(), "enemy.jsonl")
	require.NoError(t, os.WriteFile(enemy, []byte(`{"tick":1,"agent":"*","set":{"enemy_x":3}}`+"\n"), 0o644))
	r, url = startInspected(t, "../../scripts/soldier.lua", "--agents", "1", "--hz", "20", "--input", enemy)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url+"?agents=1")))
	poll(t, ctx, "every region active at once", `(() => {
		const v = document.querySelector('.agent-view[data-id="1"]');
		return ['alive.movement.hold', 'alive.orders.listening', 'alive.weapon'].every(p => v.querySelector('.state.active[data-path="' + p + '"]'));
	})()`)
	poll(t, ctx, "the path with braces", `/^alive\{movement\.hold,orders\.listening,weapon\.(aiming|firing|reloading)\}$/.test(document.querySelector('.agent-view[data-id="1"] .path').textContent)`)
	assert.Equal(t, exitOK, r.stop(t))
}

// A suspended agent is marked in the list and its view, and the view's
// "resume agent" button lets it tick again.
func TestInspectorResumeInBrowser(t *testing.T) {
	ctx := browser(t)
	script := filepath.Join(t.TempDir(), "spin.lua")
	require.NoError(t, os.WriteFile(script, []byte(`local ai = require("luaai")
return ai.fsm { initial = "s", context = { n = 0 }, states = { s = {
  update = function(ctx)
    if ctx.n == 0 then while true do end end
    ctx.n = ctx.n + 1
  end } } }`), 0o644))
	input := filepath.Join(t.TempDir(), "fix.jsonl")
	// The fix arrives while the agent is suspended: only a resume brings it back.
	require.NoError(t, os.WriteFile(input, []byte(`{"tick":6,"agent":"*","set":{"n":1}}`+"\n"), 0o644))
	r, url := startInspected(t, script, "--agents", "2", "--hz", "20", "--budget", "5ms", "--input", input)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url+"?agents=2")))
	// Found and clicked in one step of the page's own: the page redraws the
	// agent every frame, so a node found by one request may be gone by the
	// next ("Could not find node with given id").
	poll(t, ctx, "the suspension shown, and its resume button clicked", `(() => {
		const b = document.querySelector('.agent-view[data-id="2"] .resume-agent');
		if (!b) return false;
		b.click();
		return true;
	})()`)
	r.waitFor(t, "agent 2 resumed", func(_, stderr string) bool { return strings.Contains(stderr, "agent 2 resumed") })
	poll(t, ctx, "agent 2 ticking again", `!document.querySelector('.agent-view[data-id="2"] .resume-agent') && !document.querySelector('.agent-view[data-id="2"] .bad')`)
	r.stop(t)
}

// An agent stuck on its stack (a to refused on every tick) is freed by its
// view's reset button, which keeps its context; respawn gives it a new one.
func TestInspectorResetInBrowser(t *testing.T) {
	ctx := browser(t)
	script := filepath.Join(t.TempDir(), "guard.lua")
	require.NoError(t, os.WriteFile(script, []byte(`local ai = require("luaai")
return ai.fsm {
  initial = "patrol",
  context = { n = 0 },
  states = {
    patrol = { update = function(ctx) ctx.n = ctx.n + 1 end, transitions = { { push = "look", when = function(ctx) return ctx.n == 2 end } } },
    look = { transitions = { { to = "alert", after = 0.1 } } },
    alert = { transitions = { { to = "patrol", after = 0.1 } } },
  },
}`), 0o644))
	r, url := startInspected(t, script, "--hz", "20")
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url+"?agents=1")))
	r.waitFor(t, "the refusal", func(_, stderr string) bool {
		return strings.Contains(stderr, `to "patrol": state is already on the stack`)
	})
	poll(t, ctx, "the reset button clicked", `(() => {
		const b = document.querySelector('.agent-view[data-id="1"] .reset-agent');
		if (!b) return false;
		b.click();
		return true;
	})()`)
	r.waitFor(t, "agent 1 reset", func(_, stderr string) bool {
		return strings.Contains(stderr, "agent 1 reset: alert -> patrol (context kept)")
	})
	poll(t, ctx, "the respawn button clicked", `(() => {
		const b = document.querySelector('.agent-view[data-id="1"] .respawn-agent');
		if (!b) return false;
		b.click();
		return true;
	})()`)
	r.waitFor(t, "agent 1 respawned", func(_, stderr string) bool { return strings.Contains(stderr, "agent 1 respawned:") })
	r.stop(t)
}

// The context as a modder reads it: a Lua sequence from 1, an empty table
// as {}, numbers as Lua prints them; and the agent's last transitions with
// their tick and cause.
func TestInspectorShowsLuaValuesInBrowser(t *testing.T) {
	ctx := browser(t)
	script := filepath.Join(t.TempDir(), "squad.lua")
	require.NoError(t, os.WriteFile(script, []byte(`local ai = require("luaai")
return ai.fsm { initial = "a", context = { squad = { 3, 5 }, none = {}, x = 0 },
  states = {
    a = { update = function(ctx) ctx.x = 0.1 + 0.2 end, transitions = { { to = "b", after = 0.1 } } },
    b = { transitions = { { to = "a", after = 0.1 } } },
  } }`), 0o644))
	r, url := startInspected(t, script, "--agents", "1", "--hz", "20")
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url+"?agents=1")))
	view := `document.querySelector('.agent-view[data-id="1"]')`
	poll(t, ctx, "the context drawn", view+` && !!`+view+`.querySelector('[data-key="x"]')`)
	poll(t, ctx, "x as Lua prints it", view+`.querySelector('.ctx [data-key="x"]').textContent === 'x = 0.3'`)
	assert.Equal(t, "1 = 3", eval[string](t, ctx, view+`.querySelector('.ctx [data-key="squad.1"]').textContent`))
	assert.Equal(t, "2 = 5", eval[string](t, ctx, view+`.querySelector('.ctx [data-key="squad.2"]').textContent`))
	assert.Equal(t, "none = {}", eval[string](t, ctx, view+`.querySelector('.ctx [data-key="none"]').textContent`))
	poll(t, ctx, "several transitions kept, newest first", `(() => {
		const items = [...`+view+`.querySelectorAll('ol.changes li')].map(li => li.textContent);
		return items.length >= 3 && /^tick \d+ (to|after): /.test(items[0]) && Number(items[0].split(' ')[1]) > Number(items[1].split(' ')[1]);
	})()`)
	r.stop(t)
}

// With --profile the page shows where the frame goes; a coverage file
// loaded in the page draws the parts it never reached dashed.
func TestInspectorProfileAndCoverageInBrowser(t *testing.T) {
	ctx := browser(t)
	r, url := startInspected(t, "../../scripts/hunter.lua", "--agents", "3", "--hz", "20", "--set", "prey_x=3", "--profile")
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url)))
	poll(t, ctx, "the profile", `!document.querySelector('#profile').hidden && document.querySelectorAll('#profile-table tbody tr').length > 0`)
	assert.Regexp(t, `^\d+ ticks, [0-9.]+ ms: Lua [0-9.]+ ms \(\d+%\), natives [0-9.]+ ms \(\d+%\)$`, eval[string](t, ctx, `document.querySelector('#profile-sum').textContent`))
	rows := eval[[]string](t, ctx, `[...document.querySelectorAll('#profile-table td.where')].map(td => td.textContent)`)
	assert.Contains(t, strings.Join(rows, "\n"), "../../scripts/hunter.lua:")
	assert.Equal(t, exitOK, r.stop(t))

	script := "../../explore/testdata/deadend.lua"
	cov := filepath.Join(t.TempDir(), "cov.json")
	code, out, errOut := cli("explore", script, "--seconds", "3600", "--runs", "2000", "--coverage", cov, "--out", t.TempDir())
	require.Equal(t, exitOK, code, out+errOut)
	r, url = startInspected(t, script, "--agents", "1", "--hz", "20")
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url+"?agents=1")))
	poll(t, ctx, "the diagram", `!!document.querySelector('.agent-view[data-id="1"] .state[data-path="broken"]')`)
	require.NoError(t, chromedp.Do(ctx, chromedp.SetUploadFiles(`#coverage-file`, []string{cov})))
	poll(t, ctx, "the coverage note", `/never reached/.test(document.querySelector('#coverage-note').textContent)`)
	assert.Equal(t, "cov.json: 3 of 14 parts never reached (dashed)", eval[string](t, ctx, `document.querySelector('#coverage-note').textContent`))
	poll(t, ctx, "broken dashed, shut not", `(() => {
		const v = document.querySelector('.agent-view[data-id="1"]');
		return v.querySelector('.state[data-path="broken"]').classList.contains('never') && !v.querySelector('.state[data-path="shut"]').classList.contains('never');
	})()`)
	assert.Equal(t, []string{"when fn@../../explore/testdata/deadend.lua:13 → broken (never)"},
		eval[[]string](t, ctx, `[...document.querySelectorAll('.agent-view[data-id="1"] .trans.never')].map(e => e.textContent)`))
	assert.Equal(t, []string{"alarm[selector.action#2]"},
		eval[[]string](t, ctx, `[...document.querySelectorAll('.agent-view[data-id="1"] .bt.never')].map(e => e.dataset.path)`))
	assert.Equal(t, exitOK, r.stop(t))
}
