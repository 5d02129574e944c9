package explore

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Shortening that the time limit cuts short keeps the inputs as far as it
// got and says so (CutShort), rather than taking the stop for "not
// reproducible on a fresh host" or for a shorter cause.
func TestShrinkCutShort(t *testing.T) {
	o := &Options{Duration: time.Hour, Runs: 3000, SearchSeed: 1} // runs decide, on a busy machine too
	rep, err := Run(context.Background(), "testdata/timing.lua", *o)
	require.NoError(t, err)
	require.NotEmpty(t, rep.Findings)
	f := rep.Findings[0]
	require.False(t, f.CutShort)
	require.True(t, f.Fresh)
	short := f.Words

	// Time is up before the first run on a fresh host ends.
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(ErrTimeLimit)
	long := append(clone(f.Inputs), Step{Op: OpTick, N: 5, Dt: 0.1})
	g := &Finding{key: f.key, Inputs: long, Message: f.Message}
	require.NoError(t, shrink(ctx, []Cast{{Script: "testdata/timing.lua", Agents: 1}}, o, g))
	require.True(t, g.CutShort)
	require.False(t, g.Fresh, "not known")
	require.Equal(t, long, g.Inputs, "kept as found")
	require.Equal(t, Words(long, 1), g.Words)
	require.NotEqual(t, short, g.Words)
}
