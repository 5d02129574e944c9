package host_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/luaai/luaai/host"
)

// The cost of a behaviour tree against an fsm doing the same work: 19 Lua
// functions that each bump a context field.
//
//   - tree_20_nodes: ai.tree { root = ai.sequence { 19 ai.action } }, the
//     engine calling each action (20 nodes per agent-tick).
//   - fsm_same_work: one leaf state whose update calls the same 19
//     functions from Lua, what a modder would write instead of a tree.
//   - tree_native_checks: a 20-node tree whose leaves are 10 native checks
//     (no Lua call) and 9 actions, in a reactive selector of sequences.
//
// go test ./host -run XXX -bench BenchmarkTree -benchtime 2000x
func BenchmarkTree(b *testing.B) {
	const agents = 1000
	actions := make([]string, 19)
	for i := range actions {
		actions[i] = fmt.Sprintf("function(ctx) ctx.n = ctx.n + %d return true end", i+1)
	}
	list := strings.Join(actions, ",\n")
	sources := map[string]string{
		"tree_20_nodes": `local ai = require("luaai")
return ai.fsm { initial = "t", context = { n = 0 }, states = {
  t = ai.tree { root = ai.sequence { ` + list + ` } } } }`,
		"fsm_same_work": `local ai = require("luaai")
local fns = { ` + list + ` }
return ai.fsm { initial = "t", context = { n = 0 }, states = {
  t = { update = function(ctx) for i = 1, 19 do fns[i](ctx) end end } } }`,
		"tree_native_checks": `local ai = require("luaai")
local fns = { ` + list + ` }
local seqs = {}
for s = 1, 3 do
  local kids = {}
  for k = 1, 3 do
    kids[#kids + 1] = ai.check(ai.ge("n", 0))
    kids[#kids + 1] = fns[(s - 1) * 3 + k]
  end
  seqs[s] = ai.sequence(kids)
end
seqs[4] = ai.check(ai.ge("n", 0))
return ai.fsm { initial = "t", context = { n = 0 }, states = {
  t = ai.tree { root = ai.sequence(seqs) } } }`,
	}
	for _, name := range []string{"fsm_same_work", "tree_20_nodes", "tree_native_checks"} {
		b.Run(name, func(b *testing.B) {
			h, err := host.New(host.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			beh, err := h.LoadString(name+".lua", sources[name])
			if err != nil {
				b.Fatal(err)
			}
			for range agents {
				if _, err := h.Spawn(beh, nil); err != nil {
					b.Fatal(err)
				}
			}
			_ = h.Tick(0.016)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				_ = h.Tick(0.016)
			}
			b.StopTimer()
			reportPerAgentTick(b, agents)
			for _, a := range h.Agents()[:1] {
				if errs := a.TakeErrors(); len(errs) > 0 {
					b.Fatal(errs[0])
				}
			}
		})
	}
}
