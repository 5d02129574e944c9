package main

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBench(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		out  []string // regexps the output must match
	}{
		{"guard", []string{"bench", "../../scripts/guard.lua", "--agents", "50", "--ticks", "20", "--workers", "1"}, exitOK, []string{
			`guard.lua: 50 agents, 20 ticks, 1 workers`,
			`agent-ticks/s   \d+`,
			`tick time       p50 \d+\.\d{3}ms  p99 \d+\.\d{3}ms  max \d+\.\d{3}ms`,
			`per agent-tick  \d+ ns, \d+\.\d\d allocs`,
			`memory/agent    -?\d+ B`,
		}},
		{"missing script", []string{"bench"}, exitUsage, nil},
		{"bad agents", []string{"bench", "../../scripts/guard.lua", "--agents", "0"}, exitUsage, nil},
		{"no such file", []string{"bench", "nope.lua"}, exitFail, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(c.args, &out, &errOut)
			require.Equal(t, c.code, code, "stderr: %s", errOut.String())
			for _, re := range c.out {
				require.Regexp(t, regexp.MustCompile(re), out.String())
			}
		})
	}
}
