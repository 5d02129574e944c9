package inspect

import "github.com/luaai/luaai/luabind"

// Compile compiles a Lua file through the engine's compile step (the
// dialect and limit passes) without running it: what luaai check does with
// a test file, which only luaai test can run. Errors name file:line.
func Compile(path string) error {
	_, err := luabind.CompileFile(path)
	return err
}

// CompiledFuncs lists every function a script defines, in line order,
// with whether it runs compiled to Go as a callback and, if not, why
// (luaai check --explain).
func CompiledFuncs(path string) ([]luabind.CompiledFunc, error) {
	proto, err := luabind.CompileFile(path)
	if err != nil {
		return nil, err
	}
	return luabind.CompiledFuncs(proto), nil
}
