package defs

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/luaai/luaai/internal/luaval"
	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind"
	lua "github.com/yuin/gopher-lua"
)

const agentTypeName = "luaai.agent"

// newModule builds the table require("luaai") returns.
func (vm *VM) newModule() *lua.LTable {
	L := vm.L
	registerNativeTypes(L)
	registerBTType(L)
	mt := L.NewTypeMetatable(machineTypeName)
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		m, _ := MachineValue(L.Get(1))
		if m == nil {
			L.Push(lua.LString("machine"))
			return 1
		}
		L.Push(lua.LString(fmt.Sprintf("ai.%s{%s} at %s", m.Kind, m.childNames(), m.Pos)))
		return 1
	}))
	mt.RawSetString("__metatable", lua.LString("luaai.machine"))

	amt := L.NewTypeMetatable(agentTypeName)
	methods := L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{
		"tick":   vm.agentTick,
		"state":  vm.agentState,
		"active": vm.agentActive,
		"send":   vm.agentSend,
		"errors": vm.agentErrors,
		"id":     vm.agentID,
	})
	amt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		a := checkAgent(L, 1)
		key := L.CheckString(2)
		if key == "ctx" {
			L.Push(a.Ctx())
			return 1
		}
		L.Push(methods.RawGetString(key))
		return 1
	}))
	amt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		a := checkAgent(L, 1)
		s, _ := a.State()
		L.Push(lua.LString("agent(" + s + ")"))
		return 1
	}))
	amt.RawSetString("__metatable", lua.LString("luaai.agent"))

	exports := map[string]lua.LGFunction{
		"fsm":     func(L *lua.LState) int { return vm.luaMachine(L, KindFSM) },
		"utility": func(L *lua.LState) int { return vm.luaMachine(L, KindUtility) },
		"regions": func(L *lua.LState) int { return vm.luaMachine(L, KindRegions) },
		"tree":    vm.luaTree,
		"push":    func(L *lua.LState) int { return vm.luaRequest(L, Push) },
		"pop":     func(L *lua.LState) int { return vm.luaRequest(L, Pop) },
		"replace": func(L *lua.LState) int { return vm.luaRequest(L, Replace) },
		"send":    vm.luaSend,
		"send_to": vm.luaSendTo,
		"sender":  vm.luaSender,
		"id":      vm.luaID,
		"state":   vm.luaState,
		"active":  vm.luaActive,
		"time":    vm.luaTime,
		"random":  vm.luaRandom,
		"log":     vm.luaLog,
		"spawn":   vm.luaSpawn,
		"agents":  vm.luaAgents,
	}
	exports["interval"] = vm.luaInterval
	for name, fn := range nativeExports() {
		exports[name] = fn
	}
	for name, fn := range btExports() {
		exports[name] = fn
	}
	return L.SetFuncs(L.NewTable(), exports)
}

// Exports lists the names of the luaai module's functions, sorted.
func (vm *VM) Exports() []string {
	t := vm.module
	var names []string
	t.ForEach(func(k, _ lua.LValue) { names = append(names, k.String()) })
	sortStrings(names)
	return names
}

func (vm *VM) luaMachine(L *lua.LState, kind Kind) int {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok || L.GetTop() != 1 {
		L.ArgError(1, "ai."+kind.String()+" takes one table: ai."+kind.String()+" { initial = …, states = { … } }")
	}
	m := decodeMachine(L, kind, t, scripterr.CallerPos(L))
	ud := L.NewUserData()
	ud.Value = m
	L.SetMetatable(ud, L.GetTypeMetatable(machineTypeName))
	L.Push(ud)
	return 1
}

func (vm *VM) luaTree(L *lua.LState) int {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok || L.GetTop() != 1 {
		L.ArgError(1, "ai.tree takes one table: ai.tree { root = ai.sequence{ … }, … }")
	}
	ud := L.NewUserData()
	ud.Value = decodeTree(L, t, scripterr.CallerPos(L))
	L.SetMetatable(ud, L.GetTypeMetatable(machineTypeName))
	L.Push(ud)
	return 1
}

func (vm *VM) mustRunner(L *lua.LState, fn string) Runner {
	if vm.runner == nil {
		L.RaiseError("ai.%s can only be called inside a callback during a tick", fn)
	}
	return vm.runner
}

func (vm *VM) luaRequest(L *lua.LState, kind TransitionKind) int {
	r := vm.mustRunner(L, kind.String())
	name, payload := "", L.Get(1) // ai.pop(payload)
	if kind != Pop {
		name, payload = L.CheckString(1), L.Get(2) // ai.push(name, payload)
	}
	if err := r.Request(kind, name, payload); err != nil {
		L.RaiseError("ai.%s: %v", kind, err)
	}
	return 0
}

func (vm *VM) luaSend(L *lua.LState) int {
	r := vm.mustRunner(L, "send")
	if err := r.Send(L.CheckString(1), L.Get(2)); err != nil {
		L.RaiseError("ai.send: %v", err)
	}
	return 0
}

// luaID is ai.id(): the running agent's id.
func (vm *VM) luaID(L *lua.LState) int {
	L.Push(lua.LNumber(vm.mustRunner(L, "id").ID()))
	return 1
}

// senderRunner is a Runner that knows who sent the event its agent is
// handling, for ai.sender(). host implements it.
type senderRunner interface {
	// Sender is the id of the agent that sent the event being handled;
	// ok is false for an event from the game and outside the callbacks
	// that handle one.
	Sender() (id int, ok bool)
}

// luaSender is ai.sender(): the id of the agent that sent the event the
// running callback handles, or nil (an event from the game, or no event).
func (vm *VM) luaSender(L *lua.LState) int {
	if s, ok := vm.runner.(senderRunner); ok {
		if id, ok := s.Sender(); ok {
			L.Push(lua.LNumber(id))
			return 1
		}
	}
	L.Push(lua.LNil)
	return 1
}

// intervalRunner is a Runner whose agent has a tick interval, for
// ai.interval(). host implements it.
type intervalRunner interface {
	// Interval is the agent's tick interval: it is ticked every
	// Interval-th host tick (1: every tick).
	Interval() int
}

// luaInterval is ai.interval(): the running agent's tick interval, 1 for a
// runner that has none. Scripts read it; only the game sets it.
func (vm *VM) luaInterval(L *lua.LState) int {
	k := 1
	if r, ok := vm.mustRunner(L, "interval").(intervalRunner); ok {
		k = r.Interval()
	}
	L.Push(lua.LNumber(k))
	return 1
}

// ErrSendRefused is what Runner.SendTo returns when the host's message
// policy refuses the message: ai.send_to returns false, "refused".
var ErrSendRefused = errors.New("refused")

// luaSendTo is ai.send_to(id, event [, payload]): the payload is checked
// to be plain data and copied before the id is looked up; true when the
// event is queued, false, "no agent" for an id that names no live agent,
// false, "refused" when the host's message policy refuses it.
func (vm *VM) luaSendTo(L *lua.LState) int {
	r := vm.mustRunner(L, "send_to")
	// The id is checked first: an agent id is an integer number (a string
	// that looks like one is not converted).
	idv := L.Get(1)
	id, isNum := idv.(lua.LNumber)
	switch {
	case !isNum:
		L.RaiseError("ai.send_to: the id must be an agent id (an integer), got a %s", luaTypeName(idv))
	case math.IsNaN(float64(id)) || math.IsInf(float64(id), 0) || float64(id) != math.Trunc(float64(id)):
		L.RaiseError("ai.send_to: the id must be an agent id (an integer), got the number %v", float64(id))
	}
	event := L.CheckString(2)
	if event == "" {
		L.ArgError(2, "an event name expected")
	}
	payload, err := luaval.CopyPlain(L.Get(3))
	if err != nil {
		L.RaiseError("ai.send_to: the payload must be plain data (nil, booleans, numbers, strings and tables of those): %v", err)
	}
	ok := false
	if float64(id) == float64(int64(id)) && id >= 1 && id <= 1<<52 {
		ok, err = r.SendTo(int(id), event, payload)
		switch {
		case errors.Is(err, ErrSendRefused):
			L.Push(lua.LFalse)
			L.Push(lua.LString("refused"))
			return 2
		case err != nil:
			L.RaiseError("ai.send_to: %v", err)
		}
	}
	if !ok {
		L.Push(lua.LFalse)
		L.Push(lua.LString("no agent"))
		return 2
	}
	L.Push(lua.LTrue)
	return 1
}

func (vm *VM) luaState(L *lua.LState) int {
	r := vm.mustRunner(L, "state")
	if s, ok := r.State(); ok {
		L.Push(lua.LString(s))
	} else {
		L.Push(lua.LNil)
	}
	return 1
}

func (vm *VM) luaActive(L *lua.LState) int {
	r := vm.mustRunner(L, "active")
	L.Push(lua.LBool(r.Active(L.CheckString(1))))
	return 1
}

func (vm *VM) luaTime(L *lua.LState) int {
	r := vm.mustRunner(L, "time")
	L.Push(lua.LNumber(r.Time()))
	return 1
}

func (vm *VM) luaRandom(L *lua.LState) int {
	return luabind.PushRandom(L, vm.mustRunner(L, "random").Rand())
}

func (vm *VM) luaLog(L *lua.LState) int {
	r := vm.mustRunner(L, "log")
	n := L.GetTop()
	parts := make([]string, n)
	for i := 1; i <= n; i++ {
		parts[i-1] = L.ToStringMeta(L.Get(i)).String()
	}
	r.Log(strings.Join(parts, "\t"))
	return 0
}

func (vm *VM) luaSpawn(L *lua.LState) int {
	if vm.spawner == nil {
		L.RaiseError("ai.spawn is not available here")
	}
	var def *State
	switch v := L.Get(1).(type) {
	case lua.LString:
		path, err := vm.Resolve(scripterr.CallerFile(L), string(v))
		if err != nil {
			L.RaiseError("ai.spawn: %v", err)
		}
		d, err := vm.LoadBehaviour(path)
		if err != nil {
			L.RaiseError("ai.spawn %q: %v", string(v), err)
		}
		def = d
	default:
		m, ok := MachineValue(v)
		if !ok {
			L.ArgError(1, "a machine (ai.fsm{}/ai.utility{}) or a script path expected")
		}
		if errs := CheckRoot(m, m.Pos.File); len(errs) > 0 {
			L.RaiseError("ai.spawn: invalid definition:\n%v", errs)
		}
		def = m
	}
	var overrides *lua.LTable
	if v := L.Get(2); v != lua.LNil {
		overrides = L.CheckTable(2)
	}
	a, err := vm.spawner.Spawn(def, overrides)
	if err != nil {
		L.RaiseError("ai.spawn: %v", err)
	}
	ud := L.NewUserData()
	ud.Value = a
	L.SetMetatable(ud, L.GetTypeMetatable(agentTypeName))
	L.Push(ud)
	return 1
}

func checkAgent(L *lua.LState, n int) LuaAgent {
	ud := L.CheckUserData(n)
	if a, ok := ud.Value.(LuaAgent); ok {
		return a
	}
	L.ArgError(n, "agent expected")
	return nil
}

func (vm *VM) agentID(L *lua.LState) int {
	if id := checkAgent(L, 1).ID(); id > 0 {
		L.Push(lua.LNumber(id))
		return 1
	}
	L.Push(lua.LNil)
	return 1
}

func (vm *VM) agentTick(L *lua.LState) int {
	a := checkAgent(L, 1)
	dt := float64(L.OptNumber(2, 0.1))
	if err := a.Tick(dt); err != nil {
		L.RaiseError("agent:tick: %v", err)
	}
	return 0
}

func (vm *VM) agentState(L *lua.LState) int {
	if s, ok := checkAgent(L, 1).State(); ok {
		L.Push(lua.LString(s))
	} else {
		L.Push(lua.LNil)
	}
	return 1
}

func (vm *VM) agentActive(L *lua.LState) int {
	L.Push(lua.LBool(checkAgent(L, 1).Active(L.CheckString(2))))
	return 1
}

func (vm *VM) agentSend(L *lua.LState) int {
	if err := checkAgent(L, 1).Send(L.CheckString(2), L.Get(3)); err != nil {
		L.RaiseError("agent:send: %v", err)
	}
	return 0
}

func (vm *VM) agentErrors(L *lua.LState) int {
	errs := checkAgent(L, 1).Errors()
	t := L.CreateTable(len(errs), 0)
	for i, e := range errs {
		et := L.CreateTable(0, 3)
		et.RawSetString("message", lua.LString(e.Message))
		et.RawSetString("state", lua.LString(e.State))
		et.RawSetString("callback", lua.LString(e.Callback))
		t.RawSetInt(i+1, et)
	}
	L.Push(t)
	return 1
}

// LoadBehaviour runs a behaviour script and returns its validated root
// machine. Results are cached by path: definitions are immutable.
func (vm *VM) LoadBehaviour(path string) (*State, error) {
	key, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if m, ok := vm.behaviour[key]; ok {
		return m, nil
	}
	proto, err := luabind.CompileFile(path)
	if err != nil {
		return nil, err
	}
	m, err := vm.LoadProto(proto)
	if err != nil {
		return nil, err
	}
	vm.behaviour[key] = m
	return m, nil
}

// Behaviours lists the behaviours loaded by path (LoadBehaviour, and so
// ai.spawn(path)), sorted by path.
func (vm *VM) Behaviours() []*State {
	paths := make([]string, 0, len(vm.behaviour))
	for p := range vm.behaviour {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	out := make([]*State, len(paths))
	for i, p := range paths {
		out[i] = vm.behaviour[p]
	}
	return out
}

// LoadProto runs a compiled behaviour chunk and validates the machine it
// returns.
func (vm *VM) LoadProto(proto *lua.FunctionProto) (*State, error) {
	old := vm.runner
	vm.runner = nil
	v, env, err := vm.RunMod(proto)
	vm.runner = old
	if err != nil {
		vm.DropModules(env)
		return nil, err
	}
	m, _ := MachineValue(v)
	if errs := CheckRoot(m, proto.SourceName); len(errs) > 0 {
		vm.DropModules(env)
		return nil, errs
	}
	m.env = env
	return m, nil
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// luaTypeName names a value's type for an error: "nil" for nil (an absent
// argument too).
func luaTypeName(v lua.LValue) string {
	if v == nil {
		return "nil"
	}
	return v.Type().String()
}
