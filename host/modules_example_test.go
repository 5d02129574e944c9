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

// Typed functions need no gopher-lua: a first *host.Agent parameter is the
// agent whose callback called, so a mod can move its own unit and no other.
func ExampleOptions_funcs() {
	type unit struct{ x, y float64 }
	h, err := host.New(host.Options{Funcs: map[string]map[string]any{
		"game": {
			"move": func(a *host.Agent, dx, dy float64) (float64, error) {
				u := a.UserData().(*unit)
				if math.Hypot(dx, dy) > 5 {
					return 0, fmt.Errorf("too far: %g", math.Hypot(dx, dy))
				}
				u.x, u.y = u.x+dx, u.y+dy
				return math.Hypot(u.x, u.y), nil
			},
		},
	}})
	if err != nil {
		panic(err)
	}
	defer h.Close()
	b, err := h.LoadString("walker.lua", `local ai = require("luaai")
local game = require("game")
return ai.fsm { initial = "walk", context = { far = 0 }, states = {
  walk = { update = function(ctx)
    ctx.far = game.move(3, 4)
    ctx.refused = select(2, pcall(game.move, 30, 40))
  end },
} }`)
	if err != nil {
		panic(err)
	}
	u := &unit{}
	a, _ := h.SpawnWith(b, host.SpawnOptions{UserData: u})
	_ = h.Tick(0.1)
	far, _ := a.Number("far")
	refused, _ := a.Text("refused")
	fmt.Println(far, *u, refused)
	// Output: 5 {3 4} walker.lua:6: too far: 50
}
