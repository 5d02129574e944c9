// Command embed is the smallest Go program that runs a luaai behaviour: it
// loads scripts/guard.lua, spawns one guard, and ticks it, telling it when
// the player shows up.
//
//	go run ./examples/embed
package main

import (
	"fmt"
	"log"

	"github.com/luaai/luaai/host"
)

func main() {
	h, err := host.New(host.Options{
		OnTransition: func(t host.Transition) {
			fmt.Printf("tick %d: %s -> %s\n", t.Tick, t.From, t.To)
		},
		OnError: func(e *host.ScriptError) { log.Print(e) },
	})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	guard, err := h.LoadFile("scripts/guard.lua")
	if err != nil {
		log.Fatal(err) // file:line: message, one problem a line
	}
	a, err := h.Spawn(guard, nil)
	if err != nil {
		log.Fatal(err)
	}
	for tick := 1; tick <= 6; tick++ {
		if tick == 3 {
			a.Set("player", "found") // the game writes the context between ticks
		}
		if err := h.Tick(0.1); err != nil {
			log.Fatal(err)
		}
	}
	player, _ := a.Text("player")
	fmt.Printf("after 6 ticks: %s (player %s)\n", a.Path(), player)
}
