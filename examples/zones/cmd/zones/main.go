// Command zones runs the zones example: with -zone, one zone of the world
// connected to the NATS server at -nats (the tests start two such
// processes); without, a NATS server in this process and every zone in
// it, then the same world on one host, and says whether every NPC's trace
// is the same.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"time"

	"github.com/luaai/luaai/examples/zones"
)

func main() {
	npcs := flag.Int("npcs", 200, "NPCs in the world")
	ticks := flag.Int("ticks", 300, "ticks to run")
	zone := flag.Int("zone", -1, "run only this zone (0 or 1), on the bus at -nats")
	url := flag.String("nats", "", "NATS server URL (with -zone)")
	out := flag.String("out", "", "write this zone's result here as JSON (with -zone)")
	flag.Parse()
	w := zones.World{NPCs: *npcs, Ticks: *ticks, Zones: 2}
	// A zone that hears nothing from the other for this long gives up.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := run(ctx, w, *zone, *url, *out); err != nil {
		fmt.Fprintln(os.Stderr, "zones:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w zones.World, zone int, url, out string) error {
	if zone >= 0 {
		r, err := zones.RunZone(ctx, w, zone, url)
		if err != nil {
			return err
		}
		data, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if out == "" {
			_, err = os.Stdout.Write(data)
			return err
		}
		return os.WriteFile(out, data, 0o644)
	}
	s, url, err := zones.StartServer()
	if err != nil {
		return err
	}
	defer s.Shutdown()
	parts := make([]zones.Result, w.Zones)
	errs := make(chan error, w.Zones)
	for i := range parts {
		go func() {
			var err error
			parts[i], err = zones.RunZone(ctx, w, i, url)
			errs <- err
		}()
	}
	for range parts {
		if err := <-errs; err != nil {
			return err
		}
	}
	zoned := zones.Merge(parts...)
	one, err := zones.RunOneHost(w)
	if err != nil {
		return err
	}
	fmt.Printf("%d NPCs, %d ticks, 2 zones over NATS: %d handoffs, %d messages across zones\n", w.NPCs, w.Ticks, zoned.Moved, zoned.Crossed)
	if !reflect.DeepEqual(one.Trace, zoned.Trace) || !reflect.DeepEqual(one.Final, zoned.Final) {
		return fmt.Errorf("the zones' traces differ from one host's")
	}
	fmt.Println("every NPC's trace is the one it has on a single host")
	return nil
}
