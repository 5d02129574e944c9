package inspect

import "github.com/luaai/luaai/luabind"

// Compile compiles a Lua file through the engine's compile step (the
// dialect and limit passes) without running it: what luaai check does with
// a test file, which only luaai test can run. Errors name file:line.
func Compile(path string) error {
	_, err := luabind.CompileFile(path)
	return err
}
