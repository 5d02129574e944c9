package host_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/luaai/luaai/host"
)

const doorScript = `
local ai = require("luaai")
return ai.fsm {
  initial = "closed",
  context = { opened = 0 },
  states = {
    closed = { transitions = { { to = "open", on = "knock" } } },
    open = {
      enter = function(ctx) ctx.opened = ctx.opened + 1 end,
      transitions = { { to = "closed", after = 0.3 } },
    },
  },
}`

// A game loads a behaviour, spawns an agent, and ticks it from its loop.
func Example() {
	h, err := host.New(host.Options{})
	if err != nil {
		panic(err)
	}
	defer h.Close()
	door, err := h.LoadString("door.lua", doorScript)
	if err != nil {
		panic(err)
	}
	a, _ := h.Spawn(door, nil)
	a.Send("knock", nil)
	for i := 1; i <= 5; i++ {
		_ = h.Tick(0.1)
		fmt.Println(i, a.Path())
	}
	n, _ := a.Number("opened")
	fmt.Println("opened", n)
	// Output:
	// 1 open
	// 2 open
	// 3 open
	// 4 closed
	// 5 closed
	// opened 1
}

// OnTransition receives every state change, and where an agent starts
// (spawn, restore): an animation can follow it alone. OnError receives
// every failed callback.
func ExampleOptions() {
	h, _ := host.New(host.Options{
		OnTransition: func(t host.Transition) {
			fmt.Printf("tick %d agent %d %s: %q -> %q\n", t.Tick, t.Agent, t.Kind, t.From, t.To)
		},
		OnError: func(e *host.ScriptError) { fmt.Println("error:", e) },
	})
	defer h.Close()
	b, _ := h.LoadString("flaky.lua", `local ai = require("luaai")
return ai.fsm {
  initial = "a",
  states = {
    a = { transitions = { { to = "b", when = function(ctx) return ctx.ready end } } },
    b = { update = function(ctx) error("out of ammo") end },
  },
}`)
	a, _ := h.Spawn(b, map[string]any{"ready": true})
	_ = a.Tick(0.1)
	// Output:
	// tick 0 agent 1 spawn: "" -> "a"
	// tick 1 agent 1 to: "a" -> "b"
	// error: flaky.lua:6: out of ammo (agent 1, state b, update)
}

// Body is a game object; Lua calls its exported methods through gopher-luar.
type Body struct{ X, Y float64 }

// MoveBy moves the body.
func (b *Body) MoveBy(dx, dy float64) { b.X += dx; b.Y += dy }

// Bind puts a Go value into an agent's context.
func ExampleAgent_Bind() {
	h, _ := host.New(host.Options{})
	defer h.Close()
	walker, _ := h.LoadString("walker.lua", `local ai = require("luaai")
return ai.fsm {
  initial = "walk",
  states = { walk = { update = function(ctx, dt) ctx.body:MoveBy(1, 2) end } },
}`)
	body := &Body{}
	a, _ := h.Spawn(walker, nil)
	a.Bind("body", body)
	_ = h.Tick(0.1)
	_ = h.Tick(0.1)
	fmt.Println(body.X, body.Y)
	// Output: 2 4
}

// A reload swaps the definition between ticks; every agent keeps its
// context and stays in the state of the same path. A broken version is
// refused whole and the old one keeps running.
func ExampleBehaviour_ReloadSource() {
	h, _ := host.New(host.Options{})
	defer h.Close()
	door, _ := h.LoadString("door.lua", doorScript)
	a, _ := h.Spawn(door, nil)
	a.Send("knock", nil)
	_ = h.Tick(0.1)
	fmt.Println("before:", a.Path())

	// The open door now closes after 5 s instead of 0.3 s.
	err := door.ReloadSource(strings.Replace(doorScript, "after = 0.3", "after = 5", 1))
	fmt.Println("reload:", err)
	for range 5 {
		_ = h.Tick(0.1)
	}
	fmt.Println("after 0.5 s more:", a.Path())

	err = door.ReloadSource(`local ai = require("luaai") return ai.fsm { initial = "nowhere", states = {} }`)
	fmt.Println("broken reload refused:", errors.Is(err, host.ErrInvalidDefinition))
	_ = h.Tick(0.1)
	fmt.Println("still running:", a.Path())
	// Output:
	// before: open
	// reload: <nil>
	// after 0.5 s more: open
	// broken reload refused: true
	// still running: open
}

// A snapshot saves every agent (context, active states, stacks, timers,
// random numbers, pending events) as JSON; Restore rebuilds them in another
// host, which then runs exactly as the first would have.
func ExampleHost_Snapshot() {
	h1, _ := host.New(host.Options{})
	defer h1.Close()
	door1, _ := h1.LoadString("door.lua", doorScript)
	a, _ := h1.Spawn(door1, nil)
	a.Send("knock", nil)
	_ = h1.Tick(0.1)
	data, err := h1.Snapshot()
	if err != nil {
		panic(err)
	}

	h2, _ := host.New(host.Options{})
	defer h2.Close()
	door2, _ := h2.LoadString("door.lua", doorScript)
	agents, err := h2.Restore(data, door2)
	if err != nil {
		panic(err)
	}
	b := agents[0]
	fmt.Println("restored:", b.ID(), b.Path())
	for range 3 {
		_ = h1.Tick(0.1)
		_ = h2.Tick(0.1)
		fmt.Println(a.Path(), b.Path())
	}
	// Output:
	// restored: 1 open
	// open open
	// open open
	// closed closed
}

// Ship is a game object bound into a context.
type Ship struct{ Fuel float64 }

// Burn is called from Lua.
func (s *Ship) Burn(n float64) { s.Fuel -= n }

// A snapshot records where Go values were bound; RestoreFrom's Rebind gives
// the restored agent the game's objects again.
func ExampleHost_RestoreFrom() {
	const pilot = `local ai = require("luaai")
return ai.fsm { initial = "fly", states = { fly = {
  update = function(ctx) ctx.ship:Burn(1) end } } }`
	h1, _ := host.New(host.Options{})
	defer h1.Close()
	b1, _ := h1.LoadString("pilot.lua", pilot)
	a, _ := h1.Spawn(b1, nil)
	_ = a.Bind("ship", &Ship{Fuel: 10})
	_ = h1.Tick(0.1)
	var save bytes.Buffer
	if err := h1.WriteSnapshot(&save); err != nil {
		panic(err)
	}

	// Later, in a new game session: the world is loaded, then the agents.
	ships := map[int]*Ship{1: {Fuel: 9}}
	h2, _ := host.New(host.Options{})
	defer h2.Close()
	b2, _ := h2.LoadString("pilot.lua", pilot)
	agents, err := h2.RestoreFrom(&save, host.RestoreOptions{
		Rebind: func(a *host.Agent, path string) any {
			fmt.Println("rebind", a.ID(), path)
			return ships[a.ID()]
		},
	}, b2)
	if err != nil {
		panic(err)
	}
	_ = h2.Tick(0.1)
	fmt.Println("fuel", ships[agents[0].ID()].Fuel)
	// Output:
	// rebind 1 ship
	// fuel 8
}

// Critter is a game object whose hot fields a script reads and writes.
type Critter struct {
	X      float64 `lua:"x"`
	Speed  float64 `lua:"speed,readonly"`
	Hunger int     `lua:"hunger"`
}

// Sync copies tagged fields into a plain Lua table before each tick and
// back after it: scripts work at plain-field speed, the game reads the
// struct between ticks.
func ExampleAgent_Sync() {
	h, _ := host.New(host.Options{})
	defer h.Close()
	b, _ := h.LoadString("critter.lua", `local ai = require("luaai")
return ai.fsm { initial = "wander", states = { wander = {
  update = function(ctx, dt)
    ctx.me.x = ctx.me.x + ctx.me.speed * dt
    ctx.me.hunger = ctx.me.hunger + 1
  end } } }`)
	c := &Critter{Speed: 2}
	a, _ := h.Spawn(b, nil)
	if err := a.Sync("me", c); err != nil {
		panic(err)
	}
	for range 3 {
		_ = h.Tick(0.5)
	}
	fmt.Println(c.X, c.Hunger)
	// Output:
	// 3 3
}

// Despawn runs the exit hooks of every active state, innermost first, and
// reports the agent leaving them; Remove drops an agent without ceremony.
func ExampleHost_Despawn() {
	h, _ := host.New(host.Options{
		OnTransition: func(t host.Transition) { fmt.Printf("%s %q -> %q\n", t.Kind, t.From, t.To) },
		OnLog:        func(l host.Log) { fmt.Println("log:", l.Msg) },
	})
	defer h.Close()
	b, _ := h.LoadString("guard.lua", `local ai = require("luaai")
return ai.fsm { initial = "patrol", exit = function() ai.log("root exit") end, states = {
  patrol = ai.fsm { initial = "walk", exit = function() ai.log("patrol exit") end, states = {
    walk = { exit = function() ai.log("walk exit") end },
  } },
} }`)
	a, _ := h.Spawn(b, nil)
	if err := h.Despawn(a); err != nil {
		panic(err)
	}
	fmt.Println(len(h.Agents()), errors.Is(a.Tick(0.1), host.ErrClosed))
	// Output:
	// spawn "" -> "patrol.walk"
	// log: walk exit
	// log: patrol exit
	// log: root exit
	// despawn "patrol.walk" -> ""
	// 0 true
}

// An agent stuck on its stack (a pushed state left with to, so the to
// back to the paused state is refused) is taken back to its initial state
// by Reset, with its context; Respawn would give it a new one.
func ExampleAgent_Reset() {
	h, _ := host.New(host.Options{})
	defer h.Close()
	b, _ := h.LoadString("guard.lua", `local ai = require("luaai")
return ai.fsm { initial = "patrol", context = { seen = 0 }, states = {
  patrol = { transitions = { { push = "look", on = "noise" } } },
  look = { enter = function(ctx) ctx.seen = ctx.seen + 1 end, transitions = { { to = "alert", after = 0.1 } } },
  alert = { transitions = { { to = "patrol", after = 0.1 } } },
} }`)
	a, _ := h.Spawn(b, nil)
	_ = a.Send("noise", nil)
	for range 4 {
		_ = h.Tick(0.1)
	}
	fmt.Println(a.Path(), a.PausedStates(), len(a.TakeErrors()) > 0)
	_ = a.Reset()
	seen, _ := a.Number("seen")
	fmt.Println(a.Path(), a.PausedStates(), seen)
	// Output:
	// alert [patrol] true
	// patrol [] 1
}
