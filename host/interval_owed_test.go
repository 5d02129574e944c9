package host_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// eagerOwed is the rule for an agent's dt, counted the plain way: every
// host tick that skips it while it is not suspended adds its dt to what it
// is owed, handed over (with the tick's own dt) at its next tick.
type eagerOwed struct {
	interval  int
	suspended bool
	owed, sum float64
	ticks, id int
}

func (e *eagerOwed) hostTick(n int, dt float64) {
	switch {
	case e.suspended:
	case (n+e.id)%e.interval == 0:
		e.sum += dt + e.owed
		e.owed = 0
		e.ticks++
	default:
		e.owed += dt
	}
}

// TestIntervalOwesExactly: an agent's dt is the plain count's, to the
// last bit: with long intervals, dts that add up with rounding, and
// suspensions, resumptions and interval changes between host ticks, on 1
// and 3 workers.
func TestIntervalOwesExactly(t *testing.T) {
	for _, workers := range []int{1, 3} {
		h, b := newTiered(t, workers)
		intervals := []int{1, 2, 3, 7, 700, 1500}
		var agents []*host.Agent
		var want []*eagerOwed
		for _, k := range intervals {
			for range 3 {
				a, err := h.SpawnWith(b, host.SpawnOptions{Interval: k})
				require.NoError(t, err)
				agents = append(agents, a)
				want = append(want, &eagerOwed{interval: k, id: a.ID()})
			}
		}
		rng := rand.New(rand.NewPCG(3, uint64(workers)))
		for n := 1; n <= 3200; n++ {
			if n%50 == 0 { // the game changes some agents between ticks
				i := rng.IntN(len(agents))
				a, e := agents[i], want[i]
				switch rng.IntN(3) {
				case 0:
					require.NoError(t, a.Suspend())
					e.suspended = true
				case 1:
					require.NoError(t, a.Unsuspend())
					e.suspended = false
				default:
					if e.interval < 700 {
						k := 1 + rng.IntN(9)
						require.NoError(t, a.SetInterval(k))
						e.interval = k
					}
				}
			}
			dt := 0.1 + float64(n%7)*0.0137
			require.NoError(t, h.Tick(dt))
			for _, e := range want {
				e.hostTick(n, dt)
			}
		}
		for i, a := range agents {
			e := want[i]
			require.Equal(t, e.ticks, a.Ticks(), "agent %d, interval %d", a.ID(), e.interval)
			require.Equal(t, e.sum, num(t, a, "sum"), "agent %d: its dts, to the last bit", a.ID())
		}
	}
}

// An interval far longer than the run skips the agent, and what it is
// owed is kept when the interval changes.
func TestIntervalLongerThanAnyRun(t *testing.T) {
	h, b := newTiered(t, 1)
	a, err := h.SpawnWith(b, host.SpawnOptions{Interval: math.MaxInt32})
	require.NoError(t, err)
	for range 5 {
		require.NoError(t, h.Tick(0.5))
	}
	require.Equal(t, 0, a.Ticks())
	require.NoError(t, a.SetInterval(1))
	require.NoError(t, h.Tick(0.5))
	require.Equal(t, 1, a.Ticks())
	require.Equal(t, 3.0, num(t, a, "sum"), "the five skipped ticks' time and its own")
}
