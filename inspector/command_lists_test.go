package inspector_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/luaai/luaai/inspector"
	"github.com/luaai/luaai/internal/luaval"
	"github.com/stretchr/testify/require"
)

// A command's value follows the rule of every value written from outside:
// a list longer than a table's sequence holds is a bad command.
func TestCommandListsFollowTheSequenceLimit(t *testing.T) {
	long := "[" + strings.TrimSuffix(strings.Repeat("0,", luaval.MaxSequence+1), ",") + "]"
	for _, cmd := range []string{
		`{"op":"set","agent":1,"path":"a","value":{"x":` + long + `}}`,
		`{"op":"send","agent":1,"event":"e","payload":` + long + `}`,
	} {
		_, err := inspector.ParseCommand([]byte(cmd))
		require.True(t, errors.Is(err, inspector.ErrBadCommand), "%v", err)
		require.ErrorContains(t, err, "list too long: 131073 elements")
	}
	_, err := inspector.ParseCommand([]byte(`{"op":"set","agent":1,"path":"a","value":[1,2,3]}`))
	require.NoError(t, err)
}

// A bad command's error keeps its cause: errors.As finds the JSON
// decoder's error under ErrBadCommand.
func TestParseCommandKeepsCause(t *testing.T) {
	for _, tc := range []struct {
		name, json string
		cause      any
	}{
		{"not JSON", `{"op":x}`, new(*json.SyntaxError)},
		{"a field of the wrong type", `{"op":"step","n":"ten"}`, new(*json.UnmarshalTypeError)},
		{"payload", `{"op":"send","agent":1,"event":"e","payload":{"a":[1,2}}`, new(*json.SyntaxError)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := inspector.ParseCommand([]byte(tc.json))
			require.ErrorIs(t, err, inspector.ErrBadCommand)
			require.ErrorAs(t, err, tc.cause)
		})
	}
}
