package hosttool_test

import (
	"fmt"
	"log"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/hosttool"
)

const guard = `
local ai = require("luaai")
return ai.fsm {
  initial = "idle",
  states = {
    idle = { transitions = { { to = "alert", on = "noise" } } },
    alert = {},
  },
}`

// A tool attaches an observer, follows an agent and reads its view and
// its behaviour's structure between ticks.
func ExampleObserve() {
	h, err := host.New(host.Options{Coverage: true})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	b, err := h.LoadString("guard.lua", guard)
	if err != nil {
		log.Fatal(err)
	}
	a, err := h.Spawn(b, nil)
	if err != nil {
		log.Fatal(err)
	}
	ob := hosttool.Observe(h, hosttool.Observer{
		Transition: func(tr host.Transition) { fmt.Println("transition:", tr.From, "->", tr.To) },
	})
	defer ob.Close()
	if err := ob.Follow(a, true); err != nil {
		log.Fatal(err)
	}
	if err := a.Send("noise", nil); err != nil {
		log.Fatal(err)
	}
	if err := h.Tick(0.1); err != nil {
		log.Fatal(err)
	}
	fmt.Println("active:", hosttool.View(a).Active)
	for _, s := range hosttool.Structure(b).Children {
		fmt.Println("state:", s.Name, len(s.Transitions))
	}
	for _, it := range hosttool.Coverage(h)[0].Items {
		fmt.Println(it.Kind, it.Name, it.Hits)
	}
	// Output:
	// transition: idle -> alert
	// active: [alert]
	// state: alert 0
	// state: idle 1
	// state alert 1
	// state idle 1
	// transition idle: to alert on noise 1
}
