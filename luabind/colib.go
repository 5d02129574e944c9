package luabind

// The coroutine library: yield results that gopher-lua loses, and how deeply
// coroutines nest.

import (
	"reflect"
	"sync"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// fixYieldResults works around a gopher-lua bug: `local a, b =
// coroutine.yield()` resumed with fewer values than it assigns leaves the
// missing ones as Go nil, not Lua nil (the registers above the top were
// cleared to Go nil when the coroutine yielded). A Go nil stored in a table
// crashes whatever Go code reads it next, the host's included. resume and
// the functions wrap returns pad their arguments with nil up to what the
// pending yield call expects.
//
// Both also count how deeply coroutines are resumed inside each other: at
// most maxCoroutineDepth, since every level is a Go call with a Lua stack
// of its own, and a script nesting them without end would make the budget's
// stop unwind for seconds.
func (vm *VM) fixYieldResults(co *lua.LTable) {
	L := vm.L
	if resume, ok := co.RawGetString("resume").(*lua.LFunction); ok && resume.IsG {
		gf := resume.GFunction
		co.RawSetString("resume", L.NewFunction(func(L *lua.LState) int {
			if th, ok := L.Get(1).(*lua.LState); ok {
				padResume(L, th, 2)
			}
			vm.enterCoroutine(L)
			defer vm.leaveCoroutine()
			return gf(L)
		}))
	}
	if wrap, ok := co.RawGetString("wrap").(*lua.LFunction); ok && wrap.IsG {
		gf := wrap.GFunction
		co.RawSetString("wrap", L.NewFunction(func(L *lua.LState) int {
			n := gf(L)
			fn, ok := L.Get(-1).(*lua.LFunction)
			if !ok || !fn.IsG || len(fn.Upvalues) != 1 || fn.Upvalues[0] == nil {
				return n
			}
			th, ok := fn.Upvalues[0].Value().(*lua.LState)
			if !ok {
				return n
			}
			aux := fn.GFunction // reads the thread from upvalue 1: keep it there
			L.Pop(1)
			L.Push(L.NewClosure(func(L *lua.LState) int {
				padResume(L, th, 1)
				vm.enterCoroutine(L)
				defer vm.leaveCoroutine()
				defer endFailedWrap(L, th)
				return aux(L)
			}, th))
			return n
		}))
	}
}

// endFailedWrap, deferred around a coroutine.wrap function's call, marks
// the thread dead when its body failed (an error, or a stop by the budget)
// and makes the caller the running thread again, then lets the failure go
// on. gopher-lua raises a wrapped thread's error in its caller without
// either, so the failed thread stayed "running": every later call of the
// function, and every resume of it, said "can not resume a running thread",
// where Lua 5.1 says the coroutine is dead.
func endFailedWrap(L, th *lua.LState) {
	r := recover()
	if r == nil {
		return
	}
	if L.G.CurrentThread == th {
		th.Dead = true
		L.G.CurrentThread = L
	}
	panic(r)
}

// maxCoroutineDepth bounds coroutines resumed inside each other.
const maxCoroutineDepth = 200

func (vm *VM) enterCoroutine(L *lua.LState) {
	if vm.guard.coDepth >= maxCoroutineDepth {
		L.RaiseError("coroutines resumed inside each other more than %d deep", maxCoroutineDepth)
	}
	vm.guard.coDepth++
}

func (vm *VM) leaveCoroutine() { vm.guard.coDepth-- }

// padResume pushes nils after the resume arguments (from index first) up
// to the number of results th's pending coroutine.yield call expects.
func padResume(L *lua.LState, th *lua.LState, first int) {
	for have, want := L.GetTop()-first+1, pendingYieldResults(th); have < want; have++ {
		L.Push(lua.LNil)
	}
}

var yieldFields struct {
	once      sync.Once
	frame     []int // LState.currentFrame
	fn, pc    []int // callFrame.Fn, callFrame.Pc
	available bool
}

// pendingYieldResults is how many results the call th is suspended in
// expects: 0 when th has not started, is not suspended in a Lua call, or
// takes any number. gopher-lua keeps this unexported; reflection reads it
// (and finds nothing, so pads nothing, if the fields ever change).
func pendingYieldResults(th *lua.LState) int {
	f := &yieldFields
	f.once.Do(func() {
		st, ok := reflect.TypeOf(lua.LState{}).FieldByName("currentFrame")
		if !ok || st.Type.Kind() != reflect.Pointer || st.Type.Elem().Kind() != reflect.Struct {
			return
		}
		fn, ok1 := st.Type.Elem().FieldByName("Fn")
		pc, ok2 := st.Type.Elem().FieldByName("Pc")
		if !ok1 || !ok2 || fn.Type != reflect.TypeOf((*lua.LFunction)(nil)) || pc.Type.Kind() != reflect.Int {
			return
		}
		f.frame, f.fn, f.pc, f.available = st.Index, fn.Index, pc.Index, true
	})
	if !f.available {
		return 0
	}
	v := reflect.ValueOf(th).Elem().FieldByIndex(f.frame)
	if v.IsNil() {
		return 0
	}
	frame := reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem().Elem()
	fn, _ := frame.FieldByIndex(f.fn).Interface().(*lua.LFunction)
	pc := int(frame.FieldByIndex(f.pc).Int())
	if fn == nil || fn.IsG || fn.Proto == nil || pc < 1 || pc > len(fn.Proto.Code) {
		return 0
	}
	inst := fn.Proto.Code[pc-1]
	if int(inst>>26) != lua.OP_CALL {
		return 0
	}
	return int(inst>>9)&0x1ff - 1 // C-1 results; C == 0 (any number) gives -1
}
