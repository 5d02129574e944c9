package host_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/luaai/luaai/host"
)

// reloadGuard reads scripts/guard.lua and adds a patrol update and an
// on_reload hook: a reload re-runs it in every worker, validates it and
// remaps every agent (active path, stacks, timers) onto the new definition.
func reloadGuard(b *testing.B) string {
	src, err := os.ReadFile("../scripts/guard.lua")
	if err != nil {
		b.Fatal(err)
	}
	out := string(src)
	for _, r := range [][2]string{
		{"      enter = function(ctx) ctx.waypoint = \"reached\" end,\n",
			"      enter = function(ctx) ctx.waypoint = \"reached\" end,\n      update = function(ctx, dt) ctx.walked = ctx.walked + dt end,\n"},
		{"  context = { waypoint = \"none\", player = \"none\" },\n",
			"  context = { waypoint = \"none\", player = \"none\", walked = 0, version = 1 },\n  on_reload = function(ctx) ctx.version = VERSION end,\n"},
	} {
		if !strings.Contains(out, r[0]) {
			b.Fatalf("scripts/guard.lua changed: %q not found", r[0])
		}
		out = strings.Replace(out, r[0], r[1], 1)
	}
	return out
}

// BenchmarkReload measures the pause a reload causes between two ticks
// with 10,000 live agents: compile, run the script in every worker,
// validate, remap every agent onto the new definition and, in "on_reload",
// run the root's on_reload(ctx) for each of them.
//
//	go test ./host -run XXX -bench Reload -benchtime 10x
func BenchmarkReload(b *testing.B) {
	guard := reloadGuard(b)
	plain := strings.Replace(guard, "  on_reload = function(ctx) ctx.version = VERSION end,\n", "", 1)
	b.Run("guard", func(b *testing.B) { benchReload(b, plain) })
	b.Run("on_reload", func(b *testing.B) { benchReload(b, guard) })
}

func benchReload(b *testing.B, template string) {
	const agents = 10000
	h, err := host.New(host.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	// Each version differs, so that nothing could be skipped as unchanged.
	src := func(version int) string {
		return strings.ReplaceAll(template, "VERSION", strconv.Itoa(version))
	}
	beh, err := h.LoadString("guard.lua", src(1)+"-- version 1\n")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < agents; i++ {
		if _, err := h.Spawn(beh, nil); err != nil {
			b.Fatal(err)
		}
	}
	// Half the guards in combat, so agents are spread over the states.
	for i, a := range h.Agents() {
		if i%2 == 0 {
			a.Set("player", "found")
		}
	}
	for i := 0; i < 3; i++ {
		if err := h.Tick(0.1); err != nil {
			b.Fatal(err)
		}
	}
	srcs := make([]string, b.N)
	for i := range srcs {
		srcs[i] = src(i+2) + "-- version " + strconv.Itoa(i+2) + "\n"
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := beh.ReloadSource(srcs[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/reload")
	if strings.Contains(template, "on_reload") {
		if v, _ := h.Agents()[agents-1].Number("version"); v != float64(b.N+1) {
			b.Fatalf("on_reload did not run: version %v", v)
		}
	}
	if err := h.Tick(0.1); err != nil { // the agents go on
		b.Fatal(err)
	}
}
