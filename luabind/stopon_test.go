package luabind

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/luaai/luaai/internal/scripterr"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// StopOn's context stops the running call like a runaway, with and without
// a budget; later calls stop at once until released.
func TestStopOn(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"with a budget", Options{Budget: time.Minute}},
		{"without a budget", Options{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vm := NewVM(tc.opts)
			defer vm.Close()
			fn, err := vm.RunString("spin.lua", "return function() while true do end end")
			require.NoError(t, err)
			quick, err := vm.RunString("quick.lua", "return function() return 1 end")
			require.NoError(t, err)

			ctx, cancel := context.WithCancel(context.Background())
			release := vm.StopOn(ctx)
			time.AfterFunc(20*time.Millisecond, cancel)
			start := time.Now()
			_, err = vm.Call(fn.(*lua.LFunction))
			require.Less(t, time.Since(start), 10*time.Second)
			var be *scripterr.BudgetError
			require.ErrorAs(t, err, &be)
			require.ErrorIs(t, err, context.Canceled)
			require.NotErrorIs(t, err, scripterr.ErrBudget)
			require.Equal(t, "spin.lua:1: callback stopped: context canceled", err.Error())

			if tc.opts.Budget > 0 {
				_, err = vm.Call(quick.(*lua.LFunction))
				require.ErrorIs(t, err, context.Canceled, "stopped at once until released")
			}
			release()
			v, err := vm.Call(quick.(*lua.LFunction))
			require.NoError(t, err)
			require.Equal(t, lua.LNumber(1), v)

			// A deadline, as a context cause.
			ctx, cancel2 := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel2()
			release = vm.StopOn(ctx)
			_, err = vm.Call(fn.(*lua.LFunction))
			release()
			require.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)

			// A context that cannot end changes nothing.
			release = vm.StopOn(context.Background())
			_, err = vm.Call(quick.(*lua.LFunction))
			release()
			require.NoError(t, err)
		})
	}
}
