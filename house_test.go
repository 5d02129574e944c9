package luaai_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The house rules of docs/architecture.md, checked: no source file over
// 600 lines, and no function over 80 lines whose comment does not say why
// it is long ("It is long because …"). Generated files ("Code generated …
// DO NOT EDIT.") are the generator's: their test checks them.
func TestHouseRules(t *testing.T) {
	const maxFile, maxFunc = 600, 80
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		require.NoError(t, err)
		if ast.IsGenerated(f) {
			return nil // written by a program, checked against it (host/funcs_fast.go)
		}
		lines := strings.Count(string(src), "\n")
		require.LessOrEqual(t, lines, maxFile, "%s has %d lines: split it by what its parts are about", path, lines)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if n > maxFunc {
				require.True(t, fn.Doc != nil && strings.Contains(fn.Doc.Text(), "It is long because"),
					"%s: %s has %d lines and no comment saying why (It is long because …)", path, fn.Name.Name, n)
			}
		}
		return nil
	})
	require.NoError(t, err)
}
