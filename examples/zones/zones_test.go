package zones_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/luaai/luaai/examples/zones"
)

// world is the run the tests compare: big enough that NPCs cross the
// border many times and greet friends across it.
var world = zones.World{NPCs: 60, Ticks: 150, Zones: 2}

// same fails the test unless the zones' merged result is the single
// host's, NPC by NPC.
func same(t *testing.T, zoned zones.Result) {
	t.Helper()
	one, err := zones.RunOneHost(world)
	if err != nil {
		t.Fatal(err)
	}
	if zoned.Moved < 20 || zoned.Crossed < 50 {
		t.Fatalf("too little crossed the border to compare: %d handoffs, %d messages", zoned.Moved, zoned.Crossed)
	}
	if len(one.Trace) != world.NPCs || len(zoned.Trace) != world.NPCs || len(zoned.Final) != world.NPCs {
		t.Fatalf("traces of %d NPCs on one host, %d in the zones (%d at the end); want %d", len(one.Trace), len(zoned.Trace), len(zoned.Final), world.NPCs)
	}
	for id, want := range one.Trace {
		got := zoned.Trace[id]
		if len(got) != len(want) {
			t.Fatalf("NPC %d: %d transitions in the zones, %d on one host", id, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("NPC %d, transition %d: %q in the zones, %q on one host", id, i, got[i], want[i])
			}
		}
		if zoned.Final[id] != one.Final[id] {
			t.Fatalf("NPC %d ends differently:\nzones: %s\none host: %s", id, zoned.Final[id], one.Final[id])
		}
	}
	t.Logf("%d handoffs, %d messages across zones", zoned.Moved, zoned.Crossed)
}

// TestZonesMatchOneHost runs the two zones in this process, each with its
// own host and NATS connection.
func TestZonesMatchOneHost(t *testing.T) {
	s, url, err := zones.StartServer()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	parts := make([]zones.Result, world.Zones)
	errs := make(chan error, world.Zones)
	for i := range parts {
		go func() {
			var err error
			parts[i], err = zones.RunZone(ctx, world, i, url)
			if err != nil {
				cancel(err) // the other zone stops waiting for this one
			}
			errs <- err
		}()
	}
	for range parts {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	same(t, zones.Merge(parts...))
}

// TestZonesAsProcesses builds the zones command and runs each zone as its
// own OS process: nothing is shared but the bus.
func TestZonesAsProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs programs")
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "zones")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	build := exec.Command("go", "build", "-o", exe, "./cmd/zones")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	s, url, err := zones.StartServer()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	type proc struct {
		cmd *exec.Cmd
		out string
	}
	var procs []proc
	done := make(chan error, world.Zones)
	for i := 0; i < world.Zones; i++ {
		out := filepath.Join(dir, "zone"+strconv.Itoa(i)+".json")
		cmd := exec.Command(exe, "-zone", strconv.Itoa(i), "-nats", url, "-out", out,
			"-npcs", strconv.Itoa(world.NPCs), "-ticks", strconv.Itoa(world.Ticks))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, proc{cmd, out})
		go func() { done <- cmd.Wait() }()
	}
	for range procs {
		if err := <-done; err != nil {
			for _, p := range procs {
				_ = p.cmd.Process.Kill() // the other zone would wait for this one
			}
			t.Fatalf("a zone failed: %v", err)
		}
	}
	var parts []zones.Result
	for _, p := range procs {
		data, err := os.ReadFile(p.out)
		if err != nil {
			t.Fatal(err)
		}
		var r zones.Result
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, r)
	}
	same(t, zones.Merge(parts...))
}
