package explore_test

import (
	"context"
	"fmt"
	"time"

	"github.com/luaai/luaai/explore"
)

// Explore a behaviour with a bound on the runs (the same result on every
// machine), and print each failure with the inputs that cause it.
func ExampleRun() {
	rep, err := explore.Run(context.Background(), "testdata/threshold.lua", explore.Options{
		Runs: 2000, SearchSeed: 1, Duration: time.Hour, // the runs end it, not the clock
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range rep.Findings {
		fmt.Printf("%s at line %d (state %s, %s)\n", f.Kind, f.Line, f.State, f.Callback)
		fmt.Println("inputs:", f.Words)
	}
	fmt.Println("never reached:", len(rep.Unreached()))
	// Output:
	// error at line 17 (state venting, enter)
	// inputs: set heat = 75.01; 1 tick of 0.1 s
	// never reached: 0
}

// Explore two scripts together: a guard (agent 1) and two villagers
// (agents 2 and 3). The guard's alarm reaches the villagers, and the
// failure names the villager's script.
func ExampleRunCast() {
	rep, err := explore.RunCast(context.Background(), []explore.Cast{
		{Script: "testdata/alarm_guard.lua", Agents: 1},
		{Script: "testdata/alarm_villager.lua", Agents: 2},
	}, explore.Options{Runs: 3000, SearchSeed: 1, Duration: time.Hour})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range rep.Findings {
		fmt.Printf("line %d of %s (state %s)\n", f.Line, f.Script, f.State)
	}
	fmt.Println("agents:", rep.Agents, "never reached:", len(rep.Unreached()))
	// Output:
	// line 11 of testdata/alarm_villager.lua (state flee)
	// agents: 3 never reached: 0
}
