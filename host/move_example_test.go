package host_test

import (
	"fmt"

	"github.com/luaai/luaai/host"
)

// A door handed from one zone's host to another's, under the game's id,
// with its timer running: it closes on the other side when it would have.
func ExampleHost_Export() {
	west, _ := host.New(host.Options{})
	east, _ := host.New(host.Options{})
	defer west.Close()
	defer east.Close()
	wd, _ := west.LoadString("door.lua", doorScript)
	ed, _ := east.LoadString("door.lua", doorScript)
	a, _ := west.SpawnWith(wd, host.SpawnOptions{ID: 7001})
	_ = a.Send("knock", nil)
	_ = west.Tick(0.1)
	doc, err := west.Export(a) // no exit hooks: it is still open
	if err != nil {
		panic(err)
	}
	moved, err := east.Import(doc, host.ImportOptions{}, ed)
	if err != nil {
		panic(err)
	}
	b := moved[0]
	for range 3 {
		_ = east.Tick(0.1)
		fmt.Println(b.ID(), b.Path())
	}
	fmt.Println(len(west.Agents()), "in the west,", len(east.Agents()), "in the east")
	// Output:
	// 7001 open
	// 7001 open
	// 7001 closed
	// 0 in the west, 1 in the east
}

// A message from an agent of another host enters the inbox where that
// sender's own ai.send_to would have put it, and ai.sender() names it.
func ExampleHost_Deliver() {
	var out []host.Message
	zone := func() (*host.Host, *host.Behaviour) {
		h, _ := host.New(host.Options{OnSendElsewhere: func(m host.Message) { out = append(out, m) }})
		b, _ := h.LoadString("greeter.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", context = { to = 0, heard = "" }, states = { s = {
  update = function(ctx) if ctx.to > 0 then ai.send_to(ctx.to, "hi", { n = 1 }) ctx.to = 0 end end,
  transitions = { { on = "hi", run = function(ctx, p) ctx.heard = "hi from " .. ai.sender() end } },
} } }`)
		return h, b
	}
	here, hb := zone()
	there, tb := zone()
	defer here.Close()
	defer there.Close()
	_, _ = here.SpawnWith(hb, host.SpawnOptions{ID: 1, Overrides: map[string]any{"to": 2}})
	b, _ := there.SpawnWith(tb, host.SpawnOptions{ID: 2})
	_ = here.Tick(0.1)
	_ = there.Tick(0.1)
	for _, m := range out {
		fmt.Printf("%d -> %d %s %s\n", m.From, m.To, m.Event, m.Payload)
		if err := there.Deliver(m); err != nil {
			panic(err)
		}
	}
	_ = there.Tick(0.1)
	fmt.Println(b.Get("heard"))
	// Output:
	// 1 -> 2 hi {"n":1}
	// hi from 1
}
