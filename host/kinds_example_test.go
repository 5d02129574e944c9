package host_test

import (
	"fmt"

	"github.com/luaai/luaai/host"
)

// The game names its agents' kinds; scripts find them with
// ai.agents(kind), and the game with AgentsOf.
func ExampleHost_AgentsOf() {
	h, err := host.New(host.Options{})
	if err != nil {
		panic(err)
	}
	defer h.Close()
	b, err := h.LoadString("mods/npc.lua", `local ai = require("luaai")
return ai.fsm { initial = "idle", context = { guards = "" }, states = {
  idle = { update = function(ctx) ctx.guards = table.concat(ai.agents("guard"), ",") end },
} }`)
	if err != nil {
		panic(err)
	}
	for _, kind := range []string{"guard", "", "guard"} {
		if _, err := h.SpawnWith(b, host.SpawnOptions{Kind: kind}); err != nil {
			panic(err)
		}
	}
	if err := h.Tick(0.1); err != nil {
		panic(err)
	}
	for _, a := range h.AgentsOf("npc") {
		fmt.Println(a.ID(), a.Kind(), "sees guards", a.Get("guards"))
	}
	// Output:
	// 2 npc sees guards 1,3
}

// LastReload says what the last reload reported, as Options.OnReload is
// told.
func ExampleBehaviour_LastReload() {
	h, err := host.New(host.Options{})
	if err != nil {
		panic(err)
	}
	defer h.Close()
	b, err := h.LoadString("door.lua", `local ai = require("luaai")
return ai.fsm { initial = "shut", states = { shut = {}, open = {} } }`)
	if err != nil {
		panic(err)
	}
	a, err := h.Spawn(b, nil)
	if err != nil {
		panic(err)
	}
	if err := b.ReloadSource(`local ai = require("luaai")
return ai.fsm { initial = "open", context = { creaks = true }, states = { open = {} } }`); err != nil {
		panic(err)
	}
	r := b.LastReload()
	fmt.Println(r.Added, r.Vanished, r.Moved, a.Path())
	// Output:
	// [creaks] [shut] 1 open
}
