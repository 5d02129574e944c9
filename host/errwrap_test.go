package host_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// A snapshot that is not JSON is refused with ErrBadSnapshot, and the
// cause stays reachable: the decoder's *json.SyntaxError with its offset.
func TestRestoreKeepsTheCause(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("idle.lua", `return require("luaai").fsm { initial = "s", states = { s = {} } }`)
	require.NoError(t, err)
	_, err = h.Restore([]byte(`{"version": 1, "agents": [x]}`), b)
	require.ErrorIs(t, err, host.ErrBadSnapshot)
	var syn *json.SyntaxError
	require.True(t, errors.As(err, &syn), "the cause is kept: %v", err)
	require.Positive(t, syn.Offset)
}

// Options that cannot work are refused by New with messages that name the
// option, without a package prefix.
func TestOptionErrorsNameTheOption(t *testing.T) {
	for _, opts := range []host.Options{{MaxErrors: -1}, {Workers: -1}, {MaxString: -1}} {
		_, err := host.New(opts)
		require.Error(t, err)
		require.Regexp(t, `^Options\.\w+ -1 is negative$`, err.Error())
	}
}
