package luabind

// table.concat under the string cap and the budget; table.sort under the
// budget.

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// tableConcat is table.concat with gopher-lua's argument handling, built
// in one buffer that stops at the cap (gopher-lua pushes every element and
// separator on the value stack first, so 600,000 elements overflow it).
func (vm *VM) tableConcat(L *lua.LState) int {
	t := L.CheckTable(1)
	sep := L.OptString(2, "")
	n := t.Len()
	i := L.OptInt(3, 1)
	j := L.OptInt(4, n)
	if L.GetTop() == 3 && (i > n || i < 1) {
		L.Push(lua.LString(""))
		return 1
	}
	if i > n {
		i = n
	}
	if i < 1 {
		i = 1
	}
	if j > n {
		j = n
	}
	if i > j {
		L.Push(lua.LString(""))
		return 1
	}
	max := vm.guard.maxString
	var b strings.Builder
	polled := 0 // the length at the last poll of the budget
	for k := i; k <= j; k++ {
		var s string
		switch v := t.RawGetInt(k).(type) {
		case lua.LString:
			s = string(v)
		case lua.LNumber:
			s = v.String()
		default:
			L.RaiseError("invalid value (%s) at index %d in table for concat", v.Type().String(), k)
		}
		add := len(s)
		if k != j {
			add += len(sep)
		}
		if b.Len()+add > max {
			vm.tooLong(L, "table.concat", float64(b.Len()+add))
		}
		b.WriteString(s)
		if k != j {
			b.WriteString(sep)
		}
		if k&4095 == 0 || b.Len()-polled > stepBytes {
			polled = b.Len()
			vm.checkBudget(L)
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// maxResults is how many values unpack and string.byte may return at once:
// Lua 5.1's LUAI_MAXCSTACK. Beyond it PUC Lua refuses ("too many results to
// unpack", "string slice too long"); gopher-lua would push millions of
// values in one instruction that no budget can interrupt.
const maxResults = 8000

// unpack is Lua 5.1's unpack(t [, i [, j]]), refusing more than maxResults
// values as PUC Lua does.
func (vm *VM) unpack(L *lua.LState) int {
	t := L.CheckTable(1)
	i := L.OptInt(2, 1)
	j := L.OptInt(3, t.Len())
	if i > j {
		return 0
	}
	if n := int64(j) - int64(i) + 1; n >= maxResults {
		L.RaiseError("too many results to unpack")
	}
	for k := i; k <= j; k++ {
		L.Push(t.RawGetInt(k))
	}
	return j - i + 1
}

// tableSort is Lua 5.1's table.sort(t [, comp]): it sorts t[1..#t] in
// place with Lua 5.1's quicksort (the same comparisons in the same order,
// so the same result for equal elements and the same "invalid order
// function for sorting" for a comparator that is not a strict order).
// gopher-lua's own sorts its array part in Go, where no budget can stop
// it: this one polls the budget as it goes, every sortPoll units of
// comparison work (a comparison of two strings costs one unit per
// sortStringUnit bytes of the shorter). A comparator's errors, and
// comparisons of values with no order, are raised as they come.
func (vm *VM) tableSort(L *lua.LState) int {
	t := L.CheckTable(1)
	var fn *lua.LFunction
	if v := L.Get(2); v != lua.LNil {
		fn = L.CheckFunction(2)
	}
	s := sorter{vm: vm, L: L, t: t, fn: fn}
	s.sort(1, t.Len())
	return 0
}

const (
	sortPoll       = 2048
	sortStringUnit = 4096
)

// sorter is one run of table.sort.
type sorter struct {
	vm   *VM
	L    *lua.LState
	t    *lua.LTable
	fn   *lua.LFunction // nil: the < operator
	work int            // comparison work since the last poll of the budget
}

func (s *sorter) get(i int) lua.LValue { return s.t.RawGetInt(i) }

func (s *sorter) swap(i, j int) {
	a, b := s.t.RawGetInt(i), s.t.RawGetInt(j)
	s.t.RawSetInt(i, b)
	s.t.RawSetInt(j, a)
}

// less compares a and b with the comparator, or with <.
func (s *sorter) less(a, b lua.LValue) bool {
	s.work++
	if x, ok := a.(lua.LString); ok {
		if y, ok := b.(lua.LString); ok {
			s.work += min(len(x), len(y)) / sortStringUnit
		}
	}
	if s.work >= sortPoll {
		s.work = 0
		s.vm.checkBudget(s.L)
	}
	if s.fn == nil {
		return s.L.LessThan(a, b)
	}
	L := s.L
	L.Push(s.fn)
	L.Push(a)
	L.Push(b)
	L.Call(2, 1)
	r := L.Get(-1)
	L.Pop(1)
	return lua.LVAsBool(r)
}

func (s *sorter) invalidOrder() {
	s.L.RaiseError("invalid order function for sorting")
}

// sort sorts t[lo..hi]: the median of the first, middle and last elements
// is the pivot; the smaller side is sorted by recursion (depth at most
// log2 n), the larger by the loop.
func (s *sorter) sort(lo, hi int) {
	for lo < hi {
		if s.less(s.get(hi), s.get(lo)) {
			s.swap(lo, hi)
		}
		if hi-lo == 1 {
			return
		}
		mid := lo + (hi-lo)/2
		if s.less(s.get(mid), s.get(lo)) {
			s.swap(mid, lo)
		} else if s.less(s.get(hi), s.get(mid)) {
			s.swap(mid, hi)
		}
		if hi-lo == 2 {
			return
		}
		// Now t[lo] <= pivot <= t[hi]; the pivot waits at hi-1 while
		// lo+1..hi-2 are split around it.
		pivot := s.get(mid)
		s.swap(mid, hi-1)
		i, j := lo, hi-1
		for {
			for i++; s.less(s.get(i), pivot); i++ {
				if i > hi {
					s.invalidOrder()
				}
			}
			for j--; s.less(pivot, s.get(j)); j-- {
				if j < lo {
					s.invalidOrder()
				}
			}
			if j < i {
				break
			}
			s.swap(i, j)
		}
		s.swap(hi-1, i)
		if i-lo < hi-i {
			s.sort(lo, i-1)
			lo = i + 1
		} else {
			s.sort(i+1, hi)
			hi = i - 1
		}
	}
}
