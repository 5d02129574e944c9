package luabind

import (
	"errors"
	"strings"
	"testing"

	"github.com/luaai/luaai/internal/scripterr"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// What a failed call leaves in its error is bounded: a string message and
// the traceback are cut to MaxErrorText, and Detach drops a table raised as
// the error value, keeping its message.
func TestErrorsKeepKilobytes(t *testing.T) {
	vm := NewVM(Options{})
	defer vm.Close()
	fn, err := vm.RunString("big.lua", `return function(kind)
  if kind == "string" then error(string.rep("x", 1e6)) end
  error({ payload = string.rep("y", 1e6) })
end`)
	require.NoError(t, err)
	_, err = vm.Call(fn.(*lua.LFunction), lua.LString("string"))
	var ae *lua.ApiError
	require.True(t, errors.As(err, &ae))
	require.LessOrEqual(t, len(ae.Object.String()), scripterr.MaxErrorText+40)
	require.True(t, strings.HasSuffix(ae.Object.String(), "more bytes)"))
	require.LessOrEqual(t, len(ae.StackTrace), scripterr.MaxErrorText+40)
	require.Same(t, err, scripterr.Detach(err), "a string error is kept as it is")

	_, err = vm.Call(fn.(*lua.LFunction), lua.LString("table"))
	require.True(t, errors.As(err, &ae))
	_, isTable := ae.Object.(*lua.LTable)
	require.True(t, isTable, "the caller of a call still sees the table")
	d := scripterr.Detach(err)
	require.True(t, errors.As(d, &ae))
	require.Equal(t, lua.LString("(error object is a table value)"), ae.Object)
	require.Equal(t, scripterr.ErrorMessage(err), scripterr.ErrorMessage(d))
}
