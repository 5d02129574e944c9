package host_test

import (
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/hosttool"
	"github.com/stretchr/testify/require"
)

const covered = `local ai = require("luaai")
return ai.fsm { initial = "idle", context = { go_on = false },
  states = {
    idle = {
      steps = { function() end, ai.wait(0.1), function() end },
      transitions = {
        { to = "work", after = 0.2 },
        { to = "flee", on = "danger" },
      },
    },
    work = ai.tree { root = ai.selector {
      ai.check(ai.is("go_on")),
      ai.action(function() return "running" end, { name = "toil" }) } },
    flee = ai.utility { states = {
      run = { score = 1 },
      hide = { score = 0 },
    } },
  } }`

// Coverage counts each part that ran and lists the ones that did not.
func TestCoverage(t *testing.T) {
	h, err := host.New(host.Options{Coverage: true, Workers: 2})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("cov.lua", covered)
	require.NoError(t, err)
	for range 3 {
		_, err := h.Spawn(b, nil)
		require.NoError(t, err)
	}
	for range 4 {
		require.NoError(t, h.Tick(0.1))
	}
	cov := hosttool.Coverage(h)
	require.Len(t, cov, 1, "the workers' layouts of one file are merged")
	require.Equal(t, "cov.lua", cov[0].File)
	hits := map[string]int{}
	for _, it := range cov[0].Items {
		hits[it.Kind.String()+" "+it.Name] = it.Hits
		require.Positive(t, it.Line, it.Name)
	}
	require.Equal(t, map[string]int{
		"state idle":                          3,
		"state work":                          3,
		"state flee":                          0,
		"state flee.run":                      0,
		"state flee.hide":                     0,
		"choice flee.run":                     0,
		"choice flee.hide":                    0,
		"transition idle: to work after 0.2s": 3,
		"transition idle: to flee on danger":  0,
		"step idle step 1 (fn@cov.lua:5)":     3,
		"step idle step 2 (wait 0.1s)":        3,
		// idle is left in tick 2's decide (after 0.2 s), before the update
		// that would have reached step 3.
		"step idle step 3 (fn@cov.lua:5)": 0,
		// work runs ticks 2-4; the selector remembers its running child,
		// so the check is ticked only the first time.
		"tree node work[selector]":         9,
		"tree node work[selector.check#1]": 3,
		"tree node work[selector.toil]":    9,
	}, hits)

	off, err := host.New(host.Options{})
	require.NoError(t, err)
	defer off.Close()
	require.Nil(t, hosttool.Coverage(off))
}

// CoverageHits gives the parts Coverage lists with hits, without the
// list; ResetCoverage starts the counts afresh and keeps the parts.
func TestCoverageHitsAndReset(t *testing.T) {
	for _, workers := range []int{1, 2} {
		h, err := host.New(host.Options{Coverage: true, Workers: workers})
		require.NoError(t, err)
		b, err := h.LoadString("covered.lua", covered)
		require.NoError(t, err)
		for range 4 {
			_, err := h.Spawn(b, nil)
			require.NoError(t, err)
		}
		for range 5 {
			require.NoError(t, h.Tick(0.1))
		}
		want := map[string]int{}
		parts := 0
		for _, bc := range hosttool.Coverage(h) {
			for _, it := range bc.Items {
				parts++
				if it.Hits > 0 {
					want[it.Kind.String()+" "+it.Name] = it.Hits
				}
			}
		}
		got := map[string]int{}
		hosttool.CoverageHits(h, func(it hosttool.CoverageItem) { got[it.Kind.String()+" "+it.Name] += it.Hits })
		require.Equal(t, want, got, "%d workers", workers)
		require.NotEmpty(t, got)

		hosttool.ResetCoverage(h)
		hosttool.CoverageHits(h, func(it hosttool.CoverageItem) { t.Errorf("after a reset: %+v", it) })
		n := 0
		for _, bc := range hosttool.Coverage(h) {
			for _, it := range bc.Items {
				n++
				require.Zero(t, it.Hits)
			}
		}
		require.Equal(t, parts, n, "the parts stay listed")
		require.NoError(t, h.Tick(0.1))
		hosttool.CoverageHits(h, func(it hosttool.CoverageItem) { require.Positive(t, it.Hits) })
		h.Close()
	}
}
