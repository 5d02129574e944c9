package host_test

import (
	"fmt"
	"math"

	"github.com/luaai/luaai/host"
	lua "github.com/yuin/gopher-lua"
)

// A game gives its scripts a Go API: require("game") returns the functions
// of Options.Modules["game"], read-only.
func ExampleOptions_modules() {
	h, err := host.New(host.Options{Modules: map[string]map[string]lua.LGFunction{
		"game": {
			"distance": func(L *lua.LState) int {
				dx := float64(L.CheckNumber(1) - L.CheckNumber(3))
				dy := float64(L.CheckNumber(2) - L.CheckNumber(4))
				L.Push(lua.LNumber(math.Hypot(dx, dy)))
				return 1
			},
		},
	}})
	if err != nil {
		panic(err)
	}
	defer h.Close()
	b, err := h.LoadString("hunter.lua", `local ai = require("luaai")
local game = require("game")
return ai.fsm { initial = "search", context = { x = 0, y = 0 }, states = {
  search = { transitions = { { to = "pounce", when = function(ctx) return game.distance(ctx.x, ctx.y, 3, 4) < 6 end } } },
  pounce = {},
} }`)
	if err != nil {
		panic(err)
	}
	a, _ := h.Spawn(b, nil)
	_ = h.Tick(0.1)
	fmt.Println(a.Path())
	// Output: pounce
}
