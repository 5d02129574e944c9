package luabind

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/luaai/luaai/internal/scripterr"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// cpuAttacks make one instruction or library call cost milliseconds, at the
// largest sizes the sandbox allows, each in a loop in one callback: setup
// runs at load (no budget) and leaves its inputs in globals.
//
// step, where set, is one instruction gopher-lua runs in Go without a
// poll: the stop lands after it, so its cost (measured in the same run)
// is allowed beyond twice the budget.
var cpuAttacks = []struct{ name, setup, body, step string }{
	{"s1 < s2 on 16 MiB strings", `A = string.rep("x", 16777216) B = string.rep("x", 16777216)`, `while true do local _ = A < B end`, `local _ = A < B`},
	{"#t over 1<<20 nils", nilArray, `while true do local _ = #T end`, ""},
	{"next over 1<<20 nils", nilArray + ` T.x = 1`, `while true do local _ = next(T) end`, ""},
	{"next over 600,000 cleared keys", clearedKeys, `while true do local _ = next(T) end`, ""},
	{"pairs over 600,000 cleared keys", clearedKeys + ` T[0.5] = 0`, `while true do for _ in pairs(T) do end end`, ""},
	{"string.rep of 16 MiB", ``, `while true do local _ = string.rep("x", 16777216) end`, ""},
	{"table.concat of 64 x 64 KiB", `T = {} for i = 1, 64 do T[i] = string.rep("x", 65536) end`, `while true do local _ = table.concat(T) end`, ""},
	{"table.sort of 400,000 numbers", `T = {} for i = 1, 400000 do T[i] = math.random() end`, `while true do table.sort(T) end`, ""},
	{"string.upper of 16 MiB", `S = string.rep("x", 16777216)`, `while true do local _ = string.upper(S) end`, ""},
	{"string.format %q of 4 MiB of zero bytes", `S = string.rep("\0", 4194000)`, `while true do local _ = string.format("%q", S) end`, ""},
	{"table.sort of 400,000 numbers, reversed", `T = {} for i = 1, 400000 do T[i] = -i end`, `while true do table.sort(T, function(a, b) return a > b end) end`, ""},
}

// clearedKeys leaves one key in a table's hash part after 599,999 keys
// set and cleared before it (gopher-lua's key list keeps them).
const clearedKeys = `T = {} for i = 1, 600000 do T[i + 0.5] = i end for i = 1, 599999 do T[i + 0.5] = nil end`

const nilArray = `T = {} for i = 1, 1048576 do T[i] = true end for i = 1, 1048576 do T[i] = nil end`

// cpuCallback loads setup, then calls a callback running body and returns
// its error and the CPU time its thread spent in the call.
func cpuCallback(t *testing.T, vm *VM, setup, body string) (error, time.Duration) {
	t.Helper()
	_, err := vm.RunString("setup.lua", setup)
	require.NoError(t, err)
	fn := compileFn(t, vm, "attack.lua", "return function()\n"+body+"\nend")
	var cerr error
	used := cpuOf(t, func() { _, cerr = vm.Call(fn) })
	return cerr, used
}

// Each attack is stopped with the budget error, having used less than
// twice its 50ms budget of CPU time (it used seconds to minutes when each
// instruction was charged as one unit of work).
func TestCPUAttacksAreStopped(t *testing.T) {
	for _, tc := range cpuAttacks {
		t.Run(tc.name, func(t *testing.T) {
			vm := budgetVM(t)
			runtime.GC() // the cases before leave tens of MiB for the collector
			err, used := cpuCallback(t, vm, tc.setup, tc.body)
			t.Logf("%s: %v CPU: %v", tc.name, used.Round(time.Millisecond/10), firstLine(err))
			require.ErrorIs(t, err, scripterr.ErrBudget)
			require.Contains(t, err.Error(), "attack.lua:2: callback ran past its 50ms budget")
			if !raceEnabled {
				var step time.Duration
				if tc.step != "" {
					one := compileFn(t, vm, "step.lua", "return function()\n"+tc.step+"\nend")
					step = cpuOf(t, func() { _, _ = vm.Call(one) })
				}
				require.Less(t, used, 2*testBudget+step, "CPU time of the stopped callback (one step: %v)", step)
			}
		})
	}
}

// cpuOps are the operations the generated scripts mix, each at a size
// drawn from 0..1 (scaled to the largest the sandbox allows).
var cpuOps = []func(size float64) string{
	func(s float64) string { return "local _ = S1 < S2" },
	func(s float64) string { return "local _ = #N" },
	func(s float64) string { return "local _ = next(N)" },
	func(s float64) string { return fmt.Sprintf("local _ = string.rep('ab', %d)", int(s*8388608)) },
	func(s float64) string { return fmt.Sprintf("local _ = table.concat(C, '', 1, %d)", 1+int(s*63)) },
	func(s float64) string {
		return fmt.Sprintf("local t = {} for i = 1, %d do t[i] = (i * 7919) %% 1009 end table.sort(t)", 1+int(s*20000))
	},
	func(s float64) string { return "table.sort(R, function(a, b) return a > b end)" },
	func(s float64) string {
		return fmt.Sprintf("local _ = string.format('%%s', string.sub(S1, 1, %d))", int(s*4194000))
	},
	func(s float64) string { return "local _ = S1 .. '!'" },
	func(s float64) string { return "local _ = string.find(S1, 'xy', 1, true)" },
	func(s float64) string {
		return fmt.Sprintf("local _ = string.upper(string.sub(S1, 1, %d))", int(s*16777216))
	},
	func(s float64) string {
		return fmt.Sprintf("local _ = string.format('%%q', string.sub(S1, 1, %d))", int(s*4194000))
	},
	func(s float64) string { return "local _ = tostring({}) .. tostring(#S1)" },
}

// Scripts generated at random (seeded: the seed is logged; set it in
// cpuSeed to replay) mix the attacks at random sizes: no callback uses
// more than twice its budget of CPU time, whether it is stopped or ends.
func TestCPUBudgetProperty(t *testing.T) {
	if raceEnabled {
		t.Skip("CPU times are measured without the race detector")
	}
	seed := uint64(time.Now().UnixNano())
	if cpuSeed != 0 {
		seed = cpuSeed
	}
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	vm := budgetVM(t)
	strSize := 1 + rng.IntN(16777216)
	nils := 1 + rng.IntN(1048576)
	setup := fmt.Sprintf(`S1 = string.rep("x", %d) S2 = string.rep("x", %d)
N = {} for i = 1, %d do N[i] = true end for i = 1, %d do N[i] = nil end N.x = 1
C = {} for i = 1, 64 do C[i] = string.rep("y", 65536) end
R = {} for i = 1, %d do R[i] = i end`, strSize, strSize, nils, nils, 1+rng.IntN(400000))
	_, err := vm.RunString("setup.lua", setup)
	require.NoError(t, err)
	stopped := 0
	for i := range 16 {
		var body strings.Builder
		loop := rng.IntN(4) != 0 // most loop for ever; the rest run a few ops and end
		if loop {
			body.WriteString("while true do\n")
		}
		for range 1 + rng.IntN(6) {
			body.WriteString(cpuOps[rng.IntN(len(cpuOps))](rng.Float64()))
			body.WriteByte('\n')
		}
		if loop {
			body.WriteString("end\n")
		}
		fn := compileFn(t, vm, fmt.Sprintf("gen%d.lua", i), "return function()\n"+body.String()+"end")
		var cerr error
		used := cpuOf(t, func() { _, cerr = vm.Call(fn) })
		if cerr != nil {
			require.ErrorIs(t, cerr, scripterr.ErrBudget, "script %d:\n%s", i, body.String())
			stopped++
		}
		require.Less(t, used, 2*testBudget, "script %d (seed %d):\n%s", i, seed, body.String())
	}
	t.Logf("%d of 16 stopped", stopped)
}

// cpuSeed replays TestCPUBudgetProperty with one seed (0: a new one).
var cpuSeed uint64

// A plain find searches in windows, polling the budget between them: it
// finds what strings.Index finds, across the windows' edges too.
func TestPlainFindAcrossWindows(t *testing.T) {
	vm := NewVM(Options{})
	defer vm.Close()
	w := 4 * stepBytes
	for _, tc := range []struct {
		name string
		n    int // the string: n bytes of 'a'...
		at   int // ...with sub written at this offset (-1: nowhere)
		sub  string
	}{
		{"empty sub", 10, -1, ""},
		{"start", 3 * w, 0, "bcd"},
		{"straddles the first edge", 3 * w, w - 2, "bcdef"},
		{"starts at the edge", 3 * w, w, "bcd"},
		{"ends at the edge", 3 * w, w - 3, "bcd"},
		{"last byte", 3 * w, 3*w - 1, "b"},
		{"absent", 3*w + 7, -1, "b"},
		{"longer than a window", 3 * w, w / 2, strings.Repeat("b", w+5)},
		{"longer than the string", 10, -1, strings.Repeat("a", 11)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := []byte(strings.Repeat("a", tc.n))
			if tc.at >= 0 {
				copy(b[tc.at:], tc.sub)
			}
			s := string(b)
			require.Equal(t, strings.Index(s, tc.sub), vm.index(vm.L, s, tc.sub))
		})
	}
}

// A large string.rep, built in polled pieces, is strings.Repeat's result
// whatever the length of the piece repeated.
func TestLargeRepIsRepeat(t *testing.T) {
	vm := budgetVM(t)
	for _, piece := range []string{"x", "abc", "0123456789", strings.Repeat("q", 300001)} {
		n := (stepBytes*3)/len(piece) + 7
		v, err := vm.RunString("rep.lua", fmt.Sprintf("return string.rep(%q, %d)", piece, n))
		require.NoError(t, err)
		require.True(t, string(v.(lua.LString)) == strings.Repeat(piece, n), "string.rep of %d bytes, %d times", len(piece), n)
	}
}
