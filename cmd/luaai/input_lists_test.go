package main

import (
	"strings"
	"testing"

	"github.com/luaai/luaai/internal/luaval"
	"github.com/stretchr/testify/require"
)

// An input value is built as a table: a list longer than a table's
// sequence holds is refused, naming the line, rather than a table whose #
// stops short of it; an object's keys stay strings, so no key fills an
// array gap.
func TestInputListsFollowTheSequenceLimit(t *testing.T) {
	long := "[" + strings.TrimSuffix(strings.Repeat("0,", luaval.MaxSequence+1), ",") + "]"
	fits := "[" + strings.TrimSuffix(strings.Repeat("0,", luaval.MaxSequence), ",") + "]"
	for _, tc := range []struct{ name, line, err string }{
		{"a long payload", `{"tick":1,"agent":1,"send":"x","payload":` + long + `}`, `in.jsonl:3: "payload": list too long: 131073 elements, more than the 131072`},
		{"a long list in a set", `{"tick":1,"agent":1,"set":{"a":{"b":` + long + `}}}`, `in.jsonl:3: "set": list too long`},
		{"a list that fits", `{"tick":1,"agent":1,"send":"x","payload":` + fits + `}`, ""},
		{"a number-like key", `{"tick":1,"agent":1,"set":{"t":{"8388608":1}}}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := parseInputLine("in.jsonl:3", tc.line, true)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			if tc.name == "a number-like key" {
				_, isMap := l.set["t"].(map[string]any)
				require.True(t, isMap)
			}
		})
	}
	_, err := parseCommand("stdin:1", "send 1 x "+long)
	require.ErrorContains(t, err, "stdin:1: send: the payload: list too long")
}

// The whole run: a long list on an --input line is an error naming the
// file and line before anything runs.
func TestRunInputLongList(t *testing.T) {
	script := writeTemp(t, "door.lua", doorLua)
	long := "[" + strings.TrimSuffix(strings.Repeat("1,", luaval.MaxSequence+5), ",") + "]"
	input := writeTemp(t, "in.jsonl", `{"tick":1,"agent":1,"send":"knock","payload":{"name":`+long+`}}`+"\n")
	code, stdout, stderr := cli("run", script, "--input", input)
	require.Equal(t, 1, code)
	require.Empty(t, stdout)
	require.Contains(t, stderr, input+`:1: "payload": list too long: 131077 elements`)
}
