package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCurve(t *testing.T) {
	code, stdout, stderr := cli("curve", "step", "b=0.25", "m=0.5")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	require.Equal(t, "step, m=0.5, b=0.25", lines[0])
	require.Equal(t, "score", lines[1], "the y axis named")
	require.Len(t, lines, 2+16+2)
	require.True(t, strings.HasSuffix(lines[len(lines)-1], "1  input"), "the x axis named")
	// A step from 0.25 to 0.75 at x = 0.5: the first half low, the second high.
	row := func(y float64) string { return lines[2+15-int(y*15+0.5)] }
	require.Equal(t, strings.Repeat("*", 30), strings.TrimSpace(strings.TrimPrefix(row(0.25), "    |")))
	require.Equal(t, strings.Repeat(" ", 30)+strings.Repeat("*", 31), strings.TrimPrefix(row(0.75), "    |"))

	svg := filepath.Join(t.TempDir(), "c.svg")
	code, stdout, _ = cli("curve", "normal", "k=0.5", "--svg", svg)
	require.Equal(t, 0, code)
	require.Equal(t, "wrote "+svg+"\n", stdout)
	data, err := os.ReadFile(svg)
	require.NoError(t, err)
	require.Contains(t, string(data), "<title>normal, k=0.5</title>")
	require.Contains(t, string(data), "<polyline points=")

	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"curve"}, "missing KIND"},
		{[]string{"curve", "wavy"}, `unknown curve kind "wavy"`},
		{[]string{"curve", "linear", "q=1"}, `"q=1": want m=N, k=N, b=N or c=N`},
		{[]string{"curve", "linear", "m=lots"}, "m=lots: not a number"},
	} {
		code, _, stderr := cli(tc.args...)
		require.Equal(t, 2, code, tc.args)
		require.Contains(t, stderr, tc.msg)
	}
}

func TestCurveKindTypo(t *testing.T) {
	code, _, stderr := cli("curve", "logistc")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `unknown curve kind "logistc" (did you mean "logistic"?`)
}
