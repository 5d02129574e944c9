// Command arena is a small Go world driven by luaai: critters on a grid with
// food, trees and each other, each running arena.lua — a utility root over
// hierarchical machines (forage, lumber, fight, wander).
//
// Each critter is a Go struct bound into its agent's context with gopher-luar
// (ctx.me). The world writes its senses before a tick; during the tick the
// behaviour reads them (also from native scorers: ai.field("me.Hunger")) and
// calls its methods, which only record an intent; after the tick the world
// applies the intents in critter order. So the Lua workers, which tick in
// parallel, never touch shared state, and a run depends only on the seed.
//
//	go run ./examples/arena                  # 300 critters, 300 ticks
//	go run ./examples/arena -short           # a quick run
//	go run ./examples/arena -agents 1000 -ticks 600 -seed 7
package main

import (
	_ "embed"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/luaai/luaai/host"
)

//go:embed arena.lua
var behaviour string

// World size and rules.
const (
	width, height = 40, 40
	maxFood       = 200
	foodPerTick   = 6
	trees         = 50
	treeWood      = 20
	senseRange    = 10.0 // cells: a distance is sensed as dist/senseRange, 1 when farther
	dt            = 0.1
)

type point struct{ X, Y int }

func (p point) dist(q point) int { return max(abs(p.X-q.X), abs(p.Y-q.Y)) }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Critter is one agent's body in the world. Lua sees it as ctx.me: its
// exported fields and methods. Fields are written by the world between
// ticks; methods, called by the behaviour during a tick, only record intent.
type Critter struct {
	ID     int
	Pos    point
	Hunger float64 // 0 (full) .. 1 (starving)
	HP     float64 // 0 .. 100
	Wood   int

	// Senses, refreshed before each tick: distances to the nearest food,
	// tree and rival, scaled to 0..1 (1: none within sense range).
	FoodDist, TreeDist, RivalDist float64

	food, tree, rival point // where the nearest ones are
	rivalID           int   // index of the nearest rival, -1 for none
	intent            intent
	stats             stats
}

type intent struct {
	kind   string // "", "seek", "wander", "eat", "chop", "strike", "flee"
	target string // seek: food, tree, rival
	dir    int    // wander: 1..4
}

type stats struct{ eaten, chopped, hits, knockouts int }

// Near reports whether the nearest food, tree or rival is within reach.
func (c *Critter) Near(what string) bool {
	switch what {
	case "food":
		return c.FoodDist*senseRange <= 1
	case "tree":
		return c.TreeDist*senseRange <= 1
	case "rival":
		return c.RivalDist*senseRange <= 1
	}
	return false
}

// Seek asks to step towards the nearest food, tree or rival.
func (c *Critter) Seek(what string) { c.intent = intent{kind: "seek", target: what} }

// Wander asks to step in a direction, 1..4.
func (c *Critter) Wander(dir int) { c.intent = intent{kind: "wander", dir: dir} }

// Eat asks to eat the food within reach.
func (c *Critter) Eat() { c.intent = intent{kind: "eat"} }

// Chop asks to take wood from the tree within reach.
func (c *Critter) Chop() { c.intent = intent{kind: "chop"} }

// Strike asks to hit the rival within reach.
func (c *Critter) Strike() { c.intent = intent{kind: "strike"} }

// Flee asks to step away from the nearest rival.
func (c *Critter) Flee() { c.intent = intent{kind: "flee"} }

type world struct {
	rng      *rand.Rand
	food     map[point]bool
	trees    map[point]int // wood left
	critters []*Critter
}

func newWorld(seed uint64, n int) *world {
	w := &world{rng: rand.New(rand.NewPCG(seed, 0xa4e7a)), food: map[point]bool{}, trees: map[point]int{}}
	for len(w.trees) < trees {
		w.trees[w.randomPoint()] = treeWood
	}
	for len(w.food) < maxFood/2 {
		w.food[w.randomPoint()] = true
	}
	for i := range n {
		w.critters = append(w.critters, &Critter{ID: i + 1, Pos: w.randomPoint(), HP: 100, Hunger: w.rng.Float64() / 2})
	}
	return w
}

func (w *world) randomPoint() point { return point{w.rng.IntN(width), w.rng.IntN(height)} }

// sense refreshes every critter's senses. It runs between ticks only.
func (w *world) sense() {
	foods := sortedPoints(w.food)
	treePts := make([]point, 0, len(w.trees))
	for p, wood := range w.trees {
		if wood > 0 {
			treePts = append(treePts, p)
		}
	}
	sort.Slice(treePts, func(i, j int) bool { return less(treePts[i], treePts[j]) })
	for _, c := range w.critters {
		var d int
		c.food, d = nearest(c.Pos, foods)
		c.FoodDist = scaled(d)
		c.tree, d = nearest(c.Pos, treePts)
		c.TreeDist = scaled(d)
		c.rivalID, d = -1, math.MaxInt
		for i, o := range w.critters {
			if o != c {
				if od := c.Pos.dist(o.Pos); od < d {
					c.rivalID, d = i, od
				}
			}
		}
		if c.rivalID >= 0 {
			c.rival = w.critters[c.rivalID].Pos
		}
		c.RivalDist = scaled(d)
	}
}

func less(a, b point) bool { return a.X < b.X || a.X == b.X && a.Y < b.Y }

func sortedPoints(set map[point]bool) []point {
	out := make([]point, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return less(out[i], out[j]) })
	return out
}

func nearest(from point, pts []point) (point, int) {
	best, d := from, math.MaxInt
	for _, p := range pts {
		if pd := from.dist(p); pd < d {
			best, d = p, pd
		}
	}
	return best, d
}

func scaled(d int) float64 {
	if d == math.MaxInt {
		return 1
	}
	return math.Min(1, float64(d)/senseRange)
}

// apply carries out every critter's intent, in critter order, then lets
// time pass: hunger grows, wounds heal, wood burns, food grows back.
func (w *world) apply(tick int) {
	for _, c := range w.critters {
		in := c.intent
		c.intent = intent{}
		switch in.kind {
		case "seek":
			switch in.target {
			case "food":
				c.Pos = step(c.Pos, c.food, 1)
			case "tree":
				c.Pos = step(c.Pos, c.tree, 1)
			case "rival":
				c.Pos = step(c.Pos, c.rival, 1)
			}
		case "wander":
			d := [...]point{{0, -1}, {1, 0}, {0, 1}, {-1, 0}}[(in.dir+3)%4]
			c.Pos = clampPoint(point{c.Pos.X + d.X, c.Pos.Y + d.Y})
		case "flee":
			c.Pos = step(c.Pos, c.rival, -1)
		case "eat":
			if w.food[c.food] && c.Pos.dist(c.food) <= 1 {
				delete(w.food, c.food)
				c.Hunger = math.Max(0, c.Hunger-0.6)
				c.stats.eaten++
			}
		case "chop":
			if w.trees[c.tree] > 0 && c.Pos.dist(c.tree) <= 1 {
				w.trees[c.tree]--
				c.Wood++
				c.stats.chopped++
			}
		case "strike":
			if c.rivalID >= 0 {
				r := w.critters[c.rivalID]
				if c.Pos.dist(r.Pos) <= 1 {
					r.HP -= 15
					c.stats.hits++
					if r.HP <= 0 { // knocked out: back at a random place, healed
						r.HP, r.Pos = 100, w.randomPoint()
						c.stats.knockouts++
					}
				}
			}
		}
	}
	for _, c := range w.critters {
		c.Hunger = math.Min(1, c.Hunger+0.01)
		c.HP = math.Min(100, c.HP+0.5)
		if tick%30 == 0 && c.Wood > 0 {
			c.Wood-- // the campfire burns
		}
	}
	for range foodPerTick {
		if len(w.food) < maxFood {
			w.food[w.randomPoint()] = true
		}
	}
	if tick%50 == 0 {
		for p := range w.trees {
			w.trees[p] = min(treeWood, w.trees[p]+5)
		}
	}
}

// step moves one cell towards target (dir 1) or away from it (dir -1).
func step(from, target point, dir int) point {
	sign := func(v int) int {
		switch {
		case v > 0:
			return 1
		case v < 0:
			return -1
		}
		return 0
	}
	return clampPoint(point{from.X + dir*sign(target.X-from.X), from.Y + dir*sign(target.Y-from.Y)})
}

func clampPoint(p point) point {
	return point{min(max(p.X, 0), width-1), min(max(p.Y, 0), height-1)}
}

func main() {
	agents := flag.Int("agents", 300, "number of critters")
	ticks := flag.Int("ticks", 300, "ticks to run (of 0.1 s)")
	seed := flag.Uint64("seed", 1, "seed of the world and of the agents' random numbers")
	workers := flag.Int("workers", 0, "Lua workers (default 1; each critter binds its own body, so more are safe)")
	short := flag.Bool("short", false, "a quick run: 60 critters, 50 ticks")
	flag.Parse()
	if *short {
		*agents, *ticks = 60, 50
	}
	if err := run(*agents, *ticks, *seed, *workers); err != nil {
		log.Fatal(err)
	}
}

func run(agents, ticks int, seed uint64, workers int) error {
	transitions := map[string]int{}
	var scriptErrors int
	h, err := host.New(host.Options{
		Seed:         seed,
		Workers:      workers,
		OnTransition: func(t host.Transition) { transitions[string(t.Kind)]++ },
		OnError: func(e *host.ScriptError) {
			scriptErrors++
			if scriptErrors <= 5 {
				log.Print(e)
			}
		},
	})
	if err != nil {
		return err
	}
	defer h.Close()
	b, err := h.LoadString("arena.lua", behaviour)
	if err != nil {
		return err // file:line: message, one problem a line
	}

	w := newWorld(seed, agents)
	w.sense()
	rng := rand.New(rand.NewPCG(seed, 1))
	var all []*host.Agent
	for _, c := range w.critters {
		// A Go struct given as an override is bound with gopher-luar, like
		// Agent.Bind: Lua reads its fields and calls its methods.
		a, err := h.Spawn(b, map[string]any{"me": c, "aggression": rng.Float64()})
		if err != nil {
			return err
		}
		all = append(all, a)
	}

	start := time.Now()
	share := map[string]int{} // agent-ticks spent in each activity
	for tick := 1; tick <= ticks; tick++ {
		if err := h.Tick(dt); err != nil {
			return err
		}
		w.apply(tick)
		w.sense()
		for _, a := range all {
			activity, _, _ := strings.Cut(a.Path(), ".")
			share[activity]++
		}
	}
	elapsed := time.Since(start)

	summary(os.Stdout, w, share, transitions, agents, ticks, h.Workers(), elapsed)
	if scriptErrors > 0 {
		return fmt.Errorf("%d script errors", scriptErrors)
	}
	return nil
}

func summary(out *os.File, w *world, share, transitions map[string]int, agents, ticks, workers int, elapsed time.Duration) {
	fmt.Fprintf(out, "arena: %d critters, %d ticks of %gs on a %dx%d grid, %d workers, %.2fs (%.1f µs per agent tick)\n\n",
		agents, ticks, dt, width, height, workers, elapsed.Seconds(),
		float64(elapsed.Microseconds())/float64(max(1, agents*ticks)))

	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "activity\tagent-ticks\tshare\t")
	names := make([]string, 0, len(share))
	for k := range share {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t\n", k, share[k], 100*float64(share[k])/float64(agents*ticks))
	}
	tw.Flush()

	var total stats
	var hunger, hp float64
	for _, c := range w.critters {
		total.eaten += c.stats.eaten
		total.chopped += c.stats.chopped
		total.hits += c.stats.hits
		total.knockouts += c.stats.knockouts
		hunger += c.Hunger
		hp += c.HP
	}
	n := float64(len(w.critters))
	fmt.Fprintln(out)
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "world\ttotal\t")
	fmt.Fprintf(tw, "food eaten\t%d\t\n", total.eaten)
	fmt.Fprintf(tw, "wood chopped\t%d\t\n", total.chopped)
	fmt.Fprintf(tw, "hits\t%d\t\n", total.hits)
	fmt.Fprintf(tw, "knockouts\t%d\t\n", total.knockouts)
	fmt.Fprintf(tw, "mean hunger\t%.2f\t\n", hunger/n)
	fmt.Fprintf(tw, "mean HP\t%.1f\t\n", hp/n)
	tw.Flush()

	fmt.Fprintln(out)
	kinds := make([]string, 0, len(transitions))
	for k := range transitions {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %d", k, transitions[k]))
	}
	fmt.Fprintf(out, "transitions: %s\n", strings.Join(parts, ", "))
}
