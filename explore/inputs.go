package explore

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/luaai/luaai/internal/luatext"
)

// An input sequence is what a game does to the agents: ticks, events,
// context writes, in order. Every sequence starts from freshly spawned
// agents.

// Op is what a Step does.
type Op uint8

// The steps.
const (
	OpTick Op = iota // tick every agent N times with Dt
	OpSend           // send Event (with Payload) to one agent
	OpSet            // write one context field of one agent
)

// Step is one input.
type Step struct {
	Op    Op
	Agent int // 0-based: which agent a send or set is for

	Dt float64 // OpTick
	N  int     // OpTick: how many ticks

	Event   string // OpSend
	Payload *Value // OpSend: nil for none
	Key     string // OpSet
	Value   Value  // OpSet
}

type valueKind uint8

const (
	vNil valueKind = iota
	vBool
	vNum
	vStr
	vAgent // another agent's id: a's id in the run
	vTable // Fields
)

// Value is a plain value a step writes or sends.
type Value struct {
	kind   valueKind
	b      bool
	n      float64
	s      string
	agent  int
	fields []field
}

type field struct {
	key string
	val Value
}

func numValue(n float64) Value    { return Value{kind: vNum, n: n} }
func strValue(s string) Value     { return Value{kind: vStr, s: s} }
func boolValue(b bool) Value      { return Value{kind: vBool, b: b} }
func agentValue(i int) Value      { return Value{kind: vAgent, agent: i} }
func tableValue(fs []field) Value { return Value{kind: vTable, fields: fs} }

// goValue is the value as host.Agent.Set and Send take it; ids are the
// run's agents' ids.
func (v Value) goValue(ids []int) any {
	switch v.kind {
	case vBool:
		return v.b
	case vNum:
		return v.n
	case vStr:
		return v.s
	case vAgent:
		return float64(ids[v.agent%len(ids)])
	case vTable:
		m := make(map[string]any, len(v.fields))
		for _, f := range v.fields {
			m[f.key] = f.val.goValue(ids)
		}
		return m
	}
	return nil
}

// lua writes the value as Lua source; agents are the test's locals.
func (v Value) lua() string {
	switch v.kind {
	case vBool:
		return strconv.FormatBool(v.b)
	case vNum:
		return luaNumber(v.n)
	case vStr:
		return luatext.Quote(v.s)
	case vAgent:
		return fmt.Sprintf("a%d:id()", v.agent+1)
	case vTable:
		if len(v.fields) == 0 {
			return "{}"
		}
		parts := make([]string, len(v.fields))
		for i, f := range v.fields {
			parts[i] = luaKey(f.key) + " = " + f.val.lua()
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	return "nil"
}

// words writes the value for a person: agents as "agent 2".
func (v Value) words() string {
	switch v.kind {
	case vAgent:
		return fmt.Sprintf("agent %d's id", v.agent+1)
	case vTable:
		if len(v.fields) == 0 {
			return "{}"
		}
		parts := make([]string, len(v.fields))
		for i, f := range v.fields {
			parts[i] = Name(f.key) + " = " + f.val.words()
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return v.lua()
}

func luaNumber(n float64) string {
	s := strconv.FormatFloat(n, 'g', 14, 64)
	if n == float64(int64(n)) && n > -1e15 && n < 1e15 {
		s = strconv.FormatInt(int64(n), 10)
	}
	return s
}

// luaKey writes a table key: a name as it is, anything else in brackets.
func luaKey(k string) string {
	if luatext.IsName(k) {
		return k
	}
	return "[" + luatext.Quote(k) + "]"
}

// Words tells a sequence as a person would: "send noise {volume = 3};
// 2 ticks; set hp = 11 on agent 2; 1 tick".
func Words(seq []Step, agents int) string {
	return words(seq, agents, func(i int) string { return fmt.Sprintf("agent %d", i+1) })
}

// castWords is Words for the agents of cast: with several scripts, each
// agent is named with its script's file name ("agent 2 (villager.lua)").
func castWords(seq []Step, cast []Cast) string {
	agents := 0
	for _, c := range cast {
		agents += c.Agents
	}
	if len(cast) < 2 {
		return Words(seq, agents)
	}
	return words(seq, agents, func(i int) string {
		return fmt.Sprintf("agent %d (%s)", i+1, Name(filepath.Base(castOf(cast, i))))
	})
}

func words(seq []Step, agents int, name func(int) string) string {
	var parts []string
	for _, s := range seq {
		parts = append(parts, s.words(agents, name))
	}
	if len(parts) == 0 {
		return "spawn only"
	}
	return strings.Join(parts, "; ")
}

func (s Step) words(agents int, name func(int) string) string {
	on := ""
	if agents > 1 {
		on = " to " + name(s.Agent%agents)
	}
	switch s.Op {
	case OpTick:
		t := "ticks"
		if s.N == 1 {
			t = "tick"
		}
		return fmt.Sprintf("%d %s of %s s", s.N, t, luaNumber(s.Dt))
	case OpSend:
		p := ""
		if s.Payload != nil {
			p = " " + s.Payload.words()
		}
		return "send " + Name(s.Event) + p + on
	default:
		if agents > 1 {
			on = " on " + name(s.Agent%agents)
		}
		return "set " + Name(s.Key) + " = " + s.Value.words() + on
	}
}

// Name writes an event name or a key as it is when it reads as one
// word, else quoted as a Lua string: a name the script chose (with a line
// break, a quote, a separator of Words) cannot make the inputs read as
// other inputs, nor forge lines where they are printed.
func Name(name string) string {
	if name == "" || !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || !unicode.IsPrint(r) || strings.ContainsRune(`;,={}"'\`, r)
	}) {
		return luatext.Quote(name)
	}
	return name
}

// ticks is how many ticks a sequence runs.
func ticks(seq []Step) int {
	n := 0
	for _, s := range seq {
		if s.Op == OpTick {
			n += s.N
		}
	}
	return n
}

func clone(seq []Step) []Step {
	out := make([]Step, len(seq))
	copy(out, seq)
	return out
}

// Plain is the value as plain data for tools (JSON): numbers, strings,
// booleans, nil, maps; another agent's id as {"agent": n} (1-based).
func (v Value) Plain() any {
	switch v.kind {
	case vBool:
		return v.b
	case vNum:
		return v.n
	case vStr:
		return v.s
	case vAgent:
		return map[string]any{"agent": v.agent + 1}
	case vTable:
		m := make(map[string]any, len(v.fields))
		for _, f := range v.fields {
			m[f.key] = f.val.Plain()
		}
		return m
	}
	return nil
}

// Plain is the step as plain data for tools (JSON): {"op":"tick","n":3,
// "dt":0.1}, {"op":"send","agent":1,"event":"noise","payload":…},
// {"op":"set","agent":2,"key":"hp","value":…}; agents 1-based.
func (s Step) Plain() map[string]any {
	switch s.Op {
	case OpTick:
		return map[string]any{"op": "tick", "n": s.N, "dt": s.Dt}
	case OpSend:
		m := map[string]any{"op": "send", "agent": s.Agent + 1, "event": s.Event}
		if s.Payload != nil {
			m["payload"] = s.Payload.Plain()
		}
		return m
	}
	return map[string]any{"op": "set", "agent": s.Agent + 1, "key": s.Key, "value": s.Value.Plain()}
}
