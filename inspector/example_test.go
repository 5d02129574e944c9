package inspector_test

import (
	"encoding/json"
	"fmt"
	"github.com/luaai/luaai/inspector"
	"net/http"
	"net/http/httptest"

	"github.com/luaai/luaai/host"
)

// The game mounts the inspector on its own server, under a prefix, and
// ticks as usual: each Tick publishes what the page shows.
func ExampleNew() {
	h, _ := host.New(host.Options{})
	defer h.Close()
	b, _ := h.LoadString("guard.lua", `
local ai = require("luaai")
return ai.fsm {
  initial = "patrol",
  states = {
    patrol = { transitions = { { on = "alarm", to = "combat" } } },
    combat = {},
  },
}`)
	a, _ := h.Spawn(b, nil)

	mux := http.NewServeMux()
	ih := inspector.New(h, inspector.Options{Token: "s3cret"}) // e.g. from os.Getenv
	mux.Handle("/ai/", http.StripPrefix("/ai", ih))
	srv := httptest.NewServer(mux) // the game's own server
	defer srv.Close()

	_ = h.Tick(0.1)
	_ = a.Send("alarm", nil)
	_ = h.Tick(0.1)

	// What the page's history slider asks for: agent 1 at tick 1.
	res, err := http.Get(srv.URL + "/ai/api/history?agent=1&tick=1&token=s3cret")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	var out struct {
		First, Last int
		Frame       struct{ Path string }
	}
	_ = json.NewDecoder(res.Body).Decode(&out)
	fmt.Println(out.Frame.Path, out.First, out.Last)
	// Output: patrol 0 2
}
