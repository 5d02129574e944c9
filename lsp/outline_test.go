package lsp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// A script with what the features look into: a sub-machine assigned to a
// local, hooks calling ai.push and ai.replace, ai.send_to, ai.active, a
// renamed table, a tree, and a callback whose context is not named ctx.
const richScript = `local ai = require("luaai")

local combat = ai.fsm {
  initial = "aim",
  context = { ammo = 6 },
  states = {
    aim = { transitions = { { to = "fire", when = function(c) return c.ammo > 0 end } } },
    fire = { enter = function(self) self.ammo = self.ammo - 1; ai.replace("aim") end },
    reload = { enter = function(ctx) ai.push("aim") end },
  },
}

return ai.fsm {
  initial = "patrol",
  renamed = { ["old"] = "patrol" },
  context = { alert = false, name = "guard" },
  states = {
    patrol = {
      update = function(ctx)
        ai.send_to(ctx.friend, "help")
        if ai.active("combat.aim") then ai.send("spotted") end
      end,
      transitions = { { to = "combat", on = "spotted" } },
    },
    combat = combat,
    work = ai.tree {
      root = ai.sequence {
        name = "chores",
        ai.action(function() return "success" end, { name = "sweep" }),
        ai.wait(1),
        ai.invert(ai.check(function() return true end), { name = "never" }),
        ai.loop(ai.sequence { name = "inner", ai.wait(2) }),
      },
      transitions = { { to = "patrol", on = "tree:success" } },
    },
  },
}
`

func TestCompletionRoles(t *testing.T) {
	d := &document{text: richScript}
	o := d.outline()
	s := newServer(Options{})
	cases := []struct {
		name, needle string
		n            int
		want         []string
	}{
		{"to in a sub-machine assigned to a local", `to = "fire"`, 6, []string{"aim", "fire", "reload"}},
		{"ai.replace from a hook acts on the machine holding the state", `ai.replace("aim")`, 12, []string{"aim", "fire", "reload"}},
		{"ai.push", `ai.push("aim")`, 9, []string{"aim", "fire", "reload"}},
		{"initial of the root", `initial = "patrol"`, 11, []string{"combat", "patrol", "work"}},
		{"on: every event, and the tree's", `on = "spotted"`, 6, []string{"help", "spotted", "tree:failure", "tree:success"}},
		{"ai.send_to's second argument", `"help")`, 1, []string{"help", "spotted", "tree:failure", "tree:success"}},
		{"ai.send", `ai.send("spotted")`, 9, []string{"help", "spotted", "tree:failure", "tree:success"}},
		{"ai.active: paths", `ai.active("combat.aim")`, 11, []string{"combat", "combat.aim", "combat.fire", "combat.reload", "patrol", "work"}},
		{"renamed value: paths", `= "patrol" }`, 3, []string{"combat", "combat.aim", "combat.fire", "combat.reload", "patrol", "work"}},
		{"a callback's first parameter is the context", "self.ammo - 1", 5, []string{"ammo", "alert", "name"}},
		{"c. in a when", "c.ammo > 0", 2, []string{"ammo", "alert", "name"}},
		{"a composite's name: the engine's name for it", `name = "chores"`, 8, []string{"sequence"}},
		{"a leaf's options: its kind and place", `name = "sweep"`, 8, []string{"action#1"}},
		{"a decorator's options", `name = "never"`, 8, []string{"invert#3"}},
		{"a field of another table", "ai.send_to", 3, []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			i := strings.Index(richScript, c.needle)
			require.GreaterOrEqual(t, i, 0)
			got := labels(s.complete(d, o, i+c.n))
			if strings.HasPrefix(c.name, "a callback") || strings.HasPrefix(c.name, "c.") {
				assert.ElementsMatch(t, c.want, got)
				return
			}
			assert.Equal(t, c.want, got)
		})
	}
}

func TestOutlineSymbols(t *testing.T) {
	d := &document{text: richScript}
	o := d.outline()
	require.Len(t, o.roots, 1, "the local sub-machine is placed, not a root")
	var names []string
	var walk func(syms []protocol.DocumentSymbol, prefix string)
	walk = func(syms []protocol.DocumentSymbol, prefix string) {
		for _, s := range syms {
			names = append(names, prefix+s.Name+":"+*s.Detail)
			walk(s.Children, prefix+s.Name+"/")
		}
	}
	walk([]protocol.DocumentSymbol{o.symbol(o.roots[0], 0)}, "")
	assert.Equal(t, []string{
		"(root):fsm",
		"(root)/combat:fsm", "(root)/combat/aim:leaf", "(root)/combat/fire:leaf", "(root)/combat/reload:leaf",
		"(root)/patrol:leaf",
		"(root)/work:tree", "(root)/work/chores:tree node (sequence)",
		"(root)/work/chores/sweep:tree node (action)", "(root)/work/chores/wait#2:tree node (wait)",
		"(root)/work/chores/never:tree node (invert)", "(root)/work/chores/never/check#1:tree node (check)",
		"(root)/work/chores/loop#4:tree node (loop)", "(root)/work/chores/loop#4/inner:tree node (sequence)",
		"(root)/work/chores/loop#4/inner/wait#1:tree node (wait)",
	}, names)
}

// Positions count UTF-16 code units, as LSP says: a line with é and an
// emoji before the cursor.
func TestPositionsUTF16(t *testing.T) {
	text := "-- é😀\nlocal x = \"aé😀b\"\n"
	src := newSource(text)
	off := strings.Index(text, "b\"")
	p := src.position(off)
	assert.Equal(t, protocol.Position{Line: 1, Character: 15}, p)
	assert.Equal(t, off, src.offset(p))
	assert.Equal(t, len(text), src.offset(protocol.Position{Line: 9, Character: 0}), "past the end")
}
