package luaai_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The import rule of docs/architecture.md, checked: each package of the
// module may import only the module's packages listed for it (tests
// aside).
var (
	allowedImports = map[string][]string{
		"luabind/internal/astpass": nil,
		"luabind/internal/lcomp":   {"internal/luaval"},
		"luabind/internal/dialect": nil,
		"luabind/internal/pattern": nil,
		"luabind/internal/srcpos":  nil,
		"luabind/internal/syntax":  nil,
		"internal/safefile":        nil,
		"internal/suggest":         nil,
		"internal/fuzzgen":         nil,
		"internal/plainjson":       nil,
		"internal/luatext":         nil,
		"internal/luacode":         nil,
		"internal/luaval":          {"internal/luatext"},
		"internal/strmap":          {"internal/luaval"},
		// The errors of scripts, shared by the machine, the definitions
		// and host (which re-exports them).
		"internal/scripterr": {"internal/luatext"},
		"types":              nil,
		// The Lua machine: it knows nothing of behaviour definitions.
		"luabind": {"luabind/internal/astpass", "luabind/internal/dialect", "luabind/internal/pattern",
			"luabind/internal/syntax", "luabind/internal/lcomp", "internal/safefile",
			"internal/scripterr", "internal/luatext", "internal/luaval"},
		// The behaviour definitions, on top of the machine: defs imports
		// luabind, never the reverse; host and the tools (luatest, explore,
		// internal/inspect) may import defs, nothing below them.
		"luabind/defs": {"luabind", "luabind/internal/srcpos", "luabind/internal/lcomp", "internal/suggest", "internal/scripterr", "internal/luatext", "internal/luaval", "internal/luacode", "internal/strmap"},
		"host":         {"luabind", "luabind/defs", "internal/suggest", "internal/scripterr", "internal/luatext", "internal/luaval", "host/internal/link", "host/internal/prefetch"},
		// What tools read of a host, beside the engine (httptrace-style),
		// through the functions host registers in link.
		"host/hosttool":      {"host", "host/internal/link", "luabind/defs"},
		"host/internal/link": {"luabind/defs"},
		// CPU cache hints for the tick: no imports of its own.
		"host/internal/prefetch": nil,
		"inspector":              {"host", "host/hosttool", "internal/plainjson"},
		"luatest":                {"host", "host/hosttool", "luabind", "luabind/defs", "internal/suggest", "internal/scripterr", "internal/luatext"},
		"explore":                {"host", "host/hosttool", "luabind", "luabind/defs", "luatest", "internal/safefile", "internal/luatext", "internal/luacode"},
		"internal/inspect":       {"host", "host/hosttool", "luabind", "luabind/defs", "internal/safefile", "internal/suggest", "internal/scripterr", "internal/luacode"},
		"cmd/luaai":              {"host", "host/hosttool", "luatest", "explore", "internal/inspect", "inspector", "lsp", "internal/plainjson", "internal/safefile", "internal/suggest", "types"},
		"lsp":                    {"internal/inspect", "luabind", "luabind/defs", "internal/scripterr"},
		"examples/arena":         {"host"},
		"examples/embed":         {"host"},
		"examples/hotreload":     {"host"},
		"":                       nil,
	}
)

func TestImportRule(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	require.NoError(t, err)
	const mod = "github.com/luaai/luaai"
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], mod), "/")
		seen[pkg] = true
		allowed, known := allowedImports[pkg]
		require.True(t, known, "package %q is not in the import rule: add it (and to docs/architecture.md)", pkg)
		ok := map[string]bool{}
		for _, p := range allowed {
			ok[p] = true
		}
		var bad []string
		for _, imp := range fields[1:] {
			if imp != mod && !strings.HasPrefix(imp, mod+"/") {
				continue
			}
			if p := strings.TrimPrefix(strings.TrimPrefix(imp, mod), "/"); !ok[p] {
				bad = append(bad, p)
			}
		}
		sort.Strings(bad)
		require.Empty(t, bad, "%q imports what the rule does not allow it", pkg)
	}
	for pkg := range allowedImports {
		require.True(t, seen[pkg], "the rule names %q, which no longer exists", pkg)
	}
}

// TestEngineKnowsNoNetwork: the engine (host, luabind, luabind/defs and
// what they import) serves no web page and opens no socket; the inspector, above
// it, does.
func TestEngineKnowsNoNetwork(t *testing.T) {
	for _, pkg := range []string{"./host", "./luabind", "./luabind/defs"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		require.NoError(t, err)
		for _, dep := range strings.Fields(string(out)) {
			require.False(t, dep == "net" || strings.HasPrefix(dep, "net/"), "%s depends on %s", pkg, dep)
		}
	}
}

var updatePicture = flag.Bool("update-picture", false, "rewrite docs/imports.dot (and docs/imports.svg with Graphviz) from the real import graph")

// TestImportPicture: docs/imports.dot, the picture of docs/architecture.md,
// is the real import graph between the module's packages (tests and
// examples aside); go test -run TestImportPicture -update-picture . redraws
// it.
func TestImportPicture(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	require.NoError(t, err)
	const mod = "github.com/luaai/luaai"
	var b strings.Builder
	b.WriteString("// The import graph of luaai's packages, written by TestImportPicture\n// (imports_test.go) from go list; do not edit.\n")
	b.WriteString("digraph imports {\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", fillcolor=\"#f4f4f4\", fontname=\"Helvetica\"];\n")
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], mod), "/")
		if pkg == "" || strings.HasPrefix(pkg, "examples/") || pkg == "internal/fuzzgen" {
			continue
		}
		fmt.Fprintf(&b, "  %q;\n", pkg)
		var deps []string
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp, mod+"/") {
				deps = append(deps, strings.TrimPrefix(imp, mod+"/"))
			}
		}
		sort.Strings(deps)
		for _, d := range deps {
			fmt.Fprintf(&b, "  %q -> %q;\n", pkg, d)
		}
	}
	b.WriteString("}\n")
	if *updatePicture {
		require.NoError(t, os.WriteFile("docs/imports.dot", []byte(b.String()), 0o644))
		svg, err := exec.Command("dot", "-Tsvg", "docs/imports.dot").Output()
		require.NoError(t, err, "Graphviz's dot draws the SVG")
		require.NoError(t, os.WriteFile("docs/imports.svg", svg, 0o644))
	}
	saved, err := os.ReadFile("docs/imports.dot")
	require.NoError(t, err)
	require.Equal(t, b.String(), string(saved), "docs/imports.dot is not the import graph: go test -run TestImportPicture -update-picture .")
}
