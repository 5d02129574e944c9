package defs

import (
	"math/rand/v2"

	lua "github.com/yuin/gopher-lua"
)

// Cond is a transition condition: a Lua function, a constant, or a native
// condition evaluated in Go. payload is the event's payload (nil without `on`).
// An error means the condition raised; the caller reports it and treats the
// condition as false.
type Cond interface {
	Test(vm *VM, ctx *lua.LTable, payload lua.LValue) (bool, error)
}

// Scorer gives a utility score: a number, a Lua function, or a native scorer.
// An error means a Lua function inside it raised; the caller reports it and
// scores the candidate 0.
type Scorer interface {
	Score(vm *VM, ctx *lua.LTable) (float64, error)
}

// Runner is what the luaai functions usable inside callbacks (docs/lua-reference.md: Functions usable inside callbacks) act
// on: the agent whose callback is running. host implements it.
type Runner interface {
	// Request asks for a Push, Pop or Replace on the nearest fsm holding
	// the running state (name is "" for Pop), with the payload the entered
	// state's enter (or, for Pop, the resumed state's resume) receives.
	Request(kind TransitionKind, name string, payload lua.LValue) error
	// Send queues an event for the agent's next tick; an error when too
	// many are pending.
	Send(event string, payload lua.LValue) error
	// ID is the agent's id.
	ID() int
	// SendTo queues event for agent id, with a payload CopyPlain made;
	// false when there is no such agent.
	SendTo(id int, event string, payload any) (bool, error)
	// State is the active path; ok is false while nothing is active.
	State() (path string, ok bool)
	Active(name string) bool
	Time() float64
	Rand() *rand.Rand
	Log(msg string)
}

// Spawner creates agents for ai.spawn. host implements it.
type Spawner interface {
	Spawn(def *State, overrides *lua.LTable) (LuaAgent, error)
}

// LuaAgent is an agent as ai.spawn hands it to Lua (docs/lua-reference.md: Agents from Lua, and tests).
type LuaAgent interface {
	// ID is the agent's id (what ai.send_to takes); 0 while an agent
	// queued by ai.spawn during a tick does not exist yet.
	ID() int
	Tick(dt float64) error
	State() (string, bool)
	Active(name string) bool
	Ctx() *lua.LTable
	Send(event string, payload lua.LValue) error
	// Errors returns the callback errors reported since the last call and
	// forgets them.
	Errors() []CallbackError
}

// CallbackError is one failed callback, as agent:errors() returns it.
type CallbackError struct {
	Message  string // "file:line: message" as Lua raised it
	State    string // the state path, "" for the root
	Callback string // "enter", "exit", "update", "pause", "resume", "lock", "when", "score", "transition", "request", "on_reload"
}

// LuaCond is a condition written as a Lua function.
type LuaCond struct {
	Fn   *lua.LFunction
	fast *fastCond // the function's comparison, evaluated in Go (fastcond.go)
}

// Test calls the function with the context and payload — or, for a
// function that only compares a context field with a constant, computes
// what it would return.
func (c LuaCond) Test(vm *VM, ctx *lua.LTable, payload lua.LValue) (bool, error) {
	if c.fast != nil {
		if r, ok := c.fast.test(ctx); ok {
			return r, nil
		}
	}
	return vm.CallBool(c.Fn, ctx, payload)
}

// ConstCond is `true` or `false` used as a condition.
type ConstCond bool

// Test returns the constant.
func (c ConstCond) Test(*VM, *lua.LTable, lua.LValue) (bool, error) { return bool(c), nil }

// LuaScorer is a score written as a Lua function.
type LuaScorer struct{ Fn *lua.LFunction }

// Score calls the function with the context.
func (s LuaScorer) Score(vm *VM, ctx *lua.LTable) (float64, error) {
	return vm.CallNumber(s.Fn, ctx)
}

// ConstScorer is a number used as a score.
type ConstScorer float64

// Score returns the constant.
func (s ConstScorer) Score(*VM, *lua.LTable) (float64, error) { return float64(s), nil }
