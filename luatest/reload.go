package luatest

import (
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/luaai/luaai/host"
	lua "github.com/yuin/gopher-lua"
)

// reload(script or agent [, source or {file = ...} or {source = ...}]) in a
// test file: the behaviour the test's agents were spawned from is reloaded,
// as luaai run --watch reloads a saved script, for every agent spawned from
// it; later ai.spawn calls of that script get the new version. Without a
// second argument the script's file is read again; a string is the new
// source text; {file = "guard_v2.lua"} reads another file (next to the test
// file, as ai.spawn resolves names). It returns what the reload reports:
//
//	{ ok = true, added = {...}, resumed = 0, vanished = {...}, moved = 0 }
//	{ ok = false, error = "guard.lua:12: ..." }
//
// The agents are where the reload left them: agent:state() says where.

// ErrNotSpawned: reload of a script no agent of the test was spawned from.
var ErrNotSpawned = errors.New("no agent was spawned from it yet (ai.spawn it first)")

func (r *runner) luaReload(L *lua.LState) int {
	from := callerPos(L).File
	b, name := r.reloadTarget(L, from)
	src, err := r.reloadSource(L, from, b, name)
	if err == nil {
		r.reloaded = append(r.reloaded, b)
		err = b.ReloadSource(src)
	}
	L.Push(reloadReport(L, b.LastReload(), err))
	return 1
}

// reloadTarget is the behaviour argument 1 names: an agent ai.spawn made,
// or a script path some agent was spawned from.
func (r *runner) reloadTarget(L *lua.LState, from string) (*host.Behaviour, string) {
	switch v := L.Get(1).(type) {
	case lua.LString:
		path, err := r.vm.Resolve(from, string(v))
		if err != nil {
			L.RaiseError("reload: %v", err)
		}
		def, err := r.vm.LoadBehaviour(path)
		if err != nil {
			L.RaiseError("reload %q: %v", string(v), err)
		}
		b, _ := def.Owner().(*host.Behaviour)
		if b == nil {
			L.RaiseError("reload %q: %v", string(v), ErrNotSpawned)
		}
		return b, path
	case *lua.LUserData:
		if la, ok := v.Value.(interface{ Agent() *host.Agent }); ok {
			if a := la.Agent(); a != nil {
				b := a.Behaviour()
				return b, b.Name()
			}
			L.ArgError(1, "the agent is queued (ai.spawn during a tick): reload after the tick")
		}
	}
	L.ArgError(1, "a script path or an agent (from ai.spawn) expected, got "+luaTypeNameOf(L.Get(1)))
	return nil, ""
}

// reloadSource is the new source argument 2 gives.
func (r *runner) reloadSource(L *lua.LState, from string, b *host.Behaviour, name string) (string, error) {
	readFile := func(rel string) (string, error) {
		path, err := r.vm.Resolve(from, rel)
		if err != nil {
			return "", err
		}
		data, err := os.ReadFile(path)
		return string(data), err
	}
	switch v := L.Get(2).(type) {
	case *lua.LNilType:
		if !r.fromScript(b) {
			L.RaiseError("reload: the agent's behaviour was built in the test (ai.spawn(ai.fsm{...})), not loaded from a script: give the new source")
		}
		data, err := os.ReadFile(name)
		return string(data), err
	case lua.LString:
		return string(v), nil
	case *lua.LTable:
		file, src := v.RawGetString("file"), v.RawGetString("source")
		switch {
		case file != lua.LNil && src != lua.LNil:
			L.ArgError(2, "give file or source, not both")
		case file.Type() == lua.LTString:
			return readFile(file.String())
		case src.Type() == lua.LTString:
			return src.String(), nil
		}
		L.ArgError(2, "a table with file = \"path\" or source = \"...\" expected")
	default:
		L.ArgError(2, "the new source text, or {file = ...} or {source = ...}, expected, got "+luaTypeNameOf(v))
	}
	return "", nil
}

// reloadReport is a reload's result as a Lua table.
func reloadReport(L *lua.LState, res host.ReloadResult, err error) *lua.LTable {
	t := L.NewTable()
	if err != nil {
		t.RawSetString("ok", lua.LFalse)
		t.RawSetString("error", lua.LString(err.Error()))
		return t
	}
	list := func(xs []string) *lua.LTable {
		xs = append([]string(nil), xs...)
		sort.Strings(xs)
		l := L.CreateTable(len(xs), 0)
		for i, x := range xs {
			l.RawSetInt(i+1, lua.LString(x))
		}
		return l
	}
	t.RawSetString("ok", lua.LTrue)
	t.RawSetString("added", list(res.Added))
	t.RawSetString("resumed", lua.LNumber(res.Resumed))
	t.RawSetString("vanished", list(res.Vanished))
	t.RawSetString("moved", lua.LNumber(res.Moved))
	return t
}

func luaTypeNameOf(v lua.LValue) string {
	if v == lua.LNil {
		return "nothing"
	}
	return fmt.Sprintf("a %s", v.Type())
}

// fromScript reports whether b is a script ai.spawn loaded by path.
func (r *runner) fromScript(b *host.Behaviour) bool {
	for _, def := range r.vm.Behaviours() {
		if def.Owner() == any(b) {
			return true
		}
	}
	return false
}
