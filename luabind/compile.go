package luabind

// Compiling chunks: every script, module, test file and load() goes through
// Compile.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind/internal/astpass"
	"github.com/luaai/luaai/luabind/internal/dialect"
	"github.com/luaai/luaai/luabind/internal/syntax"
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// chunkName is the name a chunk loaded by load/loadstring runs under: what
// the script asked for, behind a "=" so that it is never taken for a file.
func chunkName(name string) string {
	if strings.HasPrefix(name, "=") {
		return name
	}
	return "=" + name
}

func (vm *VM) luaLoadString(L *lua.LState) int {
	src, ok := L.Get(1).(lua.LString)
	if !ok {
		L.ArgError(1, "only source text can be loaded here (not a "+L.Get(1).Type().String()+")")
	}
	name := chunkName(L.OptString(2, "(load)")) // never taken for a file: see sandbox.go
	if len(src) > MaxLoadSize {
		L.Push(lua.LNil)
		L.Push(lua.LString(fmt.Sprintf("%s: the chunk is %d bytes, more than the %d-byte limit on load()", name, len(src), MaxLoadSize)))
		return 2
	}
	proto, err := vm.compileBudgeted(L, string(src), name)
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	fn := L.NewFunctionFromProto(proto)
	fn.Env = callerEnv(L)
	L.Push(fn)
	return 1
}

// Compile parses and compiles a chunk. Every script, module and test file
// goes through here, so one pipeline serves them all.
func Compile(r io.Reader, name string) (*lua.FunctionProto, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	chunk, err := parse.Parse(bytes.NewReader(src), name)
	if err != nil {
		if pe, ok := err.(*parse.Error); ok {
			line := pe.Pos.Line
			msg := strings.TrimSpace(pe.Message)
			if pe.Token != "" {
				msg = fmt.Sprintf("%s near '%s'", msg, pe.Token)
			}
			if strings.HasPrefix(msg, "syntax error") {
				// What was expected, and what it would close, as PUC says.
				if l, m, ok := syntax.Explain(src, max(line, 0)); ok {
					line, msg = l, m
				} else {
					msg = "unexpected symbol" + strings.TrimPrefix(msg, "syntax error")
				}
			}
			if line <= 0 { // at EOF: the last line
				line = bytes.Count(bytes.TrimRight(src, "\n"), []byte("\n")) + 1
			}
			return nil, scripterr.ErrorList{{Pos: scripterr.Pos{File: name, Line: line}, Msg: msg}}
		}
		return nil, scripterr.ErrorList{{Pos: scripterr.Pos{File: name}, Msg: err.Error()}}
	}
	if line, deep := astpass.TooDeep(chunk); deep { // before anything recursive
		return nil, scripterr.ErrorList{{Pos: scripterr.Pos{File: name, Line: line}, Msg: fmt.Sprintf("chunk has too many syntax levels (blocks, functions and expressions nested more than %d deep)", astpass.MaxDepth)}}
	}
	chunk = dialect.Rewrite(chunk)                                    // Lua 5.1 semantics where gopher-lua differs; see internal/dialect
	chunk = astpass.Concat(chunk, catLocal, catGlobal)                // `..` under the string cap; see concat.go
	chunk = astpass.Absent(chunk, absentLocal, absentGlobal, missing) // io.write(…) says io is not available; see sandbox.go
	proto, err := lua.Compile(chunk, name)
	if ce, ok := err.(*lua.CompileError); ok { // "compile error near line(3) ...": keep the line
		return nil, scripterr.ErrorList{{Pos: scripterr.Pos{File: name, Line: ce.Line}, Msg: ce.Message}}
	}
	if err != nil {
		p, msg := scripterr.SplitPos(err.Error())
		if p.File == "" {
			p.File = name
		}
		return nil, scripterr.ErrorList{{Pos: p, Msg: msg}}
	}
	return proto, nil
}

// CompileFile compiles a file; its chunk name is the path as given, so
// errors read "scripts/guard.lua:12: ...".
//
// The file must be a regular file of at most MaxScriptSize bytes (see
// ReadScript).
func CompileFile(path string) (*lua.FunctionProto, error) {
	src, err := ReadScript(path)
	if err != nil {
		return nil, err
	}
	if len(src) > 0 && src[0] == '#' {
		// A first line starting with # (#!/usr/bin/env luaai) is skipped,
		// as the lua command skips it; the line count stays.
		end := bytes.IndexByte(src, '\n')
		if end < 0 {
			end = len(src)
		}
		src = append(bytes.Repeat([]byte(" "), end), src[end:]...)
	}
	return Compile(bytes.NewReader(src), path)
}

// MaxLoadSize is the longest chunk load() and loadstring() compile: a
// chunk's compile cannot be interrupted, and one stopped by the budget
// finishes in the background (compileBudgeted), so the limit keeps that
// leftover work to a few tens of milliseconds.
const MaxLoadSize = 512 << 10

// loadError is RunProto's error: a *BudgetError as it is, anything else as
// an ErrorList with the position the message names.
func loadError(err error, file string) error {
	var be *scripterr.BudgetError
	if errors.As(err, &be) {
		if be.Pos.File == "" {
			be.Pos.File = file
			scripterr.API(be).Object = lua.LString(be.Error())
		}
		return be
	}
	return luaError(err, file)
}

// compileBudgeted compiles a chunk for load() without letting the compiler
// outlive the running call's budget: compiling is Go code the budget cannot
// interrupt (a 4 MiB chunk takes about a second), so a large chunk is
// compiled on another goroutine while this one waits for it or for the
// budget's stop, whichever comes first. A compile left behind by a stop
// finishes on its own (it touches nothing but its input); until it has,
// load() refuses further large chunks, so a script cannot pile them up.
func (vm *VM) compileBudgeted(L *lua.LState, src, name string) (*lua.FunctionProto, error) {
	return vm.budgetedCompile(L, "load", len(src), func() (*lua.FunctionProto, error) {
		return Compile(strings.NewReader(src), name)
	})
}

// budgetedCompile runs compile (of a chunk of size bytes) as compileBudgeted
// describes; what names the Lua function in its refusal.
func (vm *VM) budgetedCompile(L *lua.LState, what string, size int, compile func() (*lua.FunctionProto, error)) (*lua.FunctionProto, error) {
	const small = 64 << 10 // compiles in well under a millisecond
	b := vm.guard.bud
	if b == nil || !b.active || size <= small {
		return compile()
	}
	if !vm.guard.compiling.CompareAndSwap(false, true) {
		L.RaiseError("%s: a chunk abandoned by an earlier stop is still compiling", what)
	}
	type result struct {
		proto *lua.FunctionProto
		err   error
	}
	done := make(chan result, 1)
	tid := make(chan int32, 1)
	go func() {
		defer vm.guard.compiling.Store(false)
		if b.cpu {
			// Its thread's CPU time is charged to the call waiting for it.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			tid <- threadID()
		}
		p, err := compile()
		done <- result{p, err}
	}()
	// Compiling is the call's own work: it is charged as it goes on, as
	// work (wall-time rule) and as the compiling thread's CPU time.
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	var ctid int32
	var charged time.Duration
	charge := func() {
		if ctid == 0 {
			select {
			case ctid = <-tid:
				charged, _ = threadCPU(ctid)
			default:
				return
			}
		}
		if c, ok := threadCPU(ctid); ok && c > charged {
			b.extra.Add(int64(c - charged))
			charged = c
		}
	}
	for {
		select {
		case r := <-done:
			return r.proto, r.err
		case <-b.ctx.Done():
			L.RaiseError("%s", b.stopMessage())
		case <-tick.C:
			b.ctx.addWork(minWork / 4)
			if b.cpu {
				charge()
			}
		}
	}
}
