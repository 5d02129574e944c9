package hosttool_test

import (
	"encoding/json"
	"testing"

	"github.com/luaai/luaai/host/hosttool"
	"github.com/stretchr/testify/require"
)

// A coverage kind is named in text and in JSON, and reads back.
func TestCoverKindText(t *testing.T) {
	for _, tc := range []struct {
		kind hosttool.CoverKind
		name string
	}{
		{hosttool.CoverState, "state"}, {hosttool.CoverTransition, "transition"},
		{hosttool.CoverTreeNode, "tree node"}, {hosttool.CoverStep, "step"},
		{hosttool.CoverChoice, "choice"}, {hosttool.CoverKind(9), "CoverKind(9)"},
	} {
		require.Equal(t, tc.name, tc.kind.String())
		data, err := json.Marshal(hosttool.CoverageItem{Kind: tc.kind})
		require.NoError(t, err)
		require.Contains(t, string(data), `"Kind":"`+tc.name+`"`)
		var back hosttool.CoverageItem
		err = json.Unmarshal(data, &back)
		if tc.kind > hosttool.CoverChoice {
			require.ErrorContains(t, err, "unknown coverage kind")
			continue
		}
		require.NoError(t, err)
		require.Equal(t, tc.kind, back.Kind)
	}
}
