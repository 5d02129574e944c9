package inspect

import (
	"io"
	"strings"
	"testing"

	"github.com/luaai/luaai/internal/fuzzgen"
	"github.com/luaai/luaai/luabind"
	"github.com/luaai/luaai/luabind/defs"
)

// FuzzInspect lints and draws the definitions luabind/defs's FuzzDefinition
// loads: whatever loads must lint with every warning placed in a file, and
// draw in both formats.
//
//	go test ./inspect -run XXX -fuzz FuzzInspect -fuzztime 60s
func FuzzInspect(f *testing.F) {
	for _, seed := range []string{
		"", "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a", strings.Repeat("\x02\x01\x00", 20),
		"\x01\x03\x02\x00\x00\x02\x00\x04\x00\x00\x01\x00", "fsm utility states transitions score",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "scripts/def.lua"
		src := fuzzgen.Definition(data)
		vm := defs.NewVM(luabind.Options{})
		defer vm.Close()
		proto, err := luabind.Compile(strings.NewReader(src), name)
		if err != nil {
			t.Fatalf("the generator wrote invalid Lua: %v\n%s", err, src)
		}
		m, err := vm.LoadProto(proto)
		if err != nil || m == nil {
			return
		}
		for _, w := range Lint(m) {
			if w.Pos.File == "" {
				t.Fatalf("warning without a file: %v", w)
			}
		}
		for _, format := range []string{GraphDOT, GraphMermaid} {
			if err := WriteGraph(io.Discard, m, name, format); err != nil {
				t.Fatalf("graph %s: %v", format, err)
			}
		}
	})
}
