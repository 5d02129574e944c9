package luaai_test

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var updateAPI = flag.Bool("update-api", false, "rewrite api.txt from the exported API")

// apiFile lists the exported API of every public package, one declaration a
// line: a change to what users may import is a visible diff in review.
const apiFile = "api.txt"

// The exported API is the one api.txt lists. After a deliberate change,
// `go test -run TestAPI -update-api .` rewrites the file.
func TestAPI(t *testing.T) {
	got := strings.Join(exportedAPI(t), "\n") + "\n"
	if *updateAPI {
		require.NoError(t, os.WriteFile(apiFile, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(apiFile)
	require.NoError(t, err, "run: go test -run TestAPI -update-api .")
	if string(want) != got {
		added, removed := lineDiff(string(want), got)
		t.Fatalf("the exported API is not the one %s lists (go test -run TestAPI -update-api . after a deliberate change)\nadded:\n  %s\nremoved:\n  %s",
			apiFile, strings.Join(added, "\n  "), strings.Join(removed, "\n  "))
	}
}

// Every exported identifier of a public package has a doc comment that
// starts with its name (a grouped constant or variable may share its
// group's comment).
func TestExportsAreDocumented(t *testing.T) {
	var missing []string
	for _, pkg := range publicPackages(t) {
		for _, f := range pkg.files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if !d.Name.IsExported() || (d.Recv != nil && !exportedRecv(d.Recv)) {
						continue
					}
					if !startsWithName(d.Doc, d.Name.Name) {
						missing = append(missing, pkg.fset.Position(d.Pos()).String()+" "+d.Name.Name)
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							doc := s.Doc
							if doc == nil && len(d.Specs) == 1 {
								doc = d.Doc
							}
							if s.Name.IsExported() && !startsWithName(doc, s.Name.Name) {
								missing = append(missing, pkg.fset.Position(s.Pos()).String()+" "+s.Name.Name)
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.IsExported() && s.Doc == nil && d.Doc == nil && s.Comment == nil {
									missing = append(missing, pkg.fset.Position(n.Pos()).String()+" "+n.Name)
								}
							}
						}
					}
				}
			}
		}
	}
	require.Empty(t, missing, "exported without a doc comment that starts with the name")
}

type apiPackage struct {
	path  string // import path below the module
	fset  *token.FileSet
	files []*ast.File
}

// publicPackages are the packages a user may import: not internal, not a
// command, not an example, not testdata.
func publicPackages(t *testing.T) []apiPackage {
	t.Helper()
	var out []apiPackage
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "internal" || name == "cmd" || name == "examples") {
			return filepath.SkipDir
		}
		if path != "." {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // a module of its own
			}
		}
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, path, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.ParseComments)
		if err != nil {
			return err
		}
		for name, p := range pkgs {
			if name == "main" {
				continue
			}
			names := make([]string, 0, len(p.Files))
			for fn := range p.Files {
				names = append(names, fn)
			}
			sort.Strings(names)
			ap := apiPackage{path: filepath.ToSlash(path), fset: fset}
			for _, fn := range names {
				if !isGeneratedOrIgnored(p.Files[fn]) {
					ap.files = append(ap.files, p.Files[fn])
				}
			}
			out = append(out, ap)
		}
		return nil
	})
	require.NoError(t, err)
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// isGeneratedOrIgnored leaves out files whose build constraint keeps them
// off the platforms CI runs on (the API is Linux's, with its fallbacks
// named by the same declarations).
func isGeneratedOrIgnored(f *ast.File) bool {
	for _, cg := range f.Comments {
		if cg.Pos() > f.Package {
			break
		}
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "//go:build") && strings.Contains(c.Text, "!linux") {
				return true
			}
		}
	}
	return false
}

// exportedAPI is one line per exported declaration, sorted.
func exportedAPI(t *testing.T) []string {
	var lines []string
	for _, pkg := range publicPackages(t) {
		p := pkg.path
		if p == "." {
			p = "luaai"
		}
		add := func(format string, args ...any) {
			lines = append(lines, "pkg "+p+", "+fmt.Sprintf(format, args...))
		}
		for _, f := range pkg.files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if !d.Name.IsExported() || (d.Recv != nil && !exportedRecv(d.Recv)) {
						continue
					}
					recv := ""
					if d.Recv != nil {
						recv = "(" + node(pkg.fset, d.Recv.List[0].Type) + ") "
					}
					add("func %s%s%s", recv, d.Name.Name, strings.TrimPrefix(node(pkg.fset, d.Type), "func"))
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							if !s.Name.IsExported() {
								continue
							}
							typeLines(add, pkg.fset, s)
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if !n.IsExported() {
									continue
								}
								typ := ""
								if s.Type != nil {
									typ = " " + node(pkg.fset, s.Type)
								}
								add("%s %s%s", d.Tok, n.Name, typ)
							}
						}
					}
				}
			}
		}
	}
	sort.Strings(lines)
	return lines
}

// typeLines adds a type, and each exported field of a struct and method of
// an interface on a line of its own.
func typeLines(add func(string, ...any), fset *token.FileSet, s *ast.TypeSpec) {
	name := s.Name.Name
	if s.TypeParams != nil {
		name += node(fset, s.TypeParams)
	}
	switch typ := s.Type.(type) {
	case *ast.StructType:
		add("type %s struct", name)
		for _, f := range typ.Fields.List {
			for _, n := range f.Names {
				if n.IsExported() {
					add("type %s struct, %s %s", s.Name.Name, n.Name, node(fset, f.Type))
				}
			}
			if len(f.Names) == 0 { // embedded
				add("type %s struct, embedded %s", s.Name.Name, node(fset, f.Type))
			}
		}
	case *ast.InterfaceType:
		add("type %s interface", name)
		for _, m := range typ.Methods.List {
			for _, n := range m.Names {
				if n.IsExported() {
					add("type %s interface, %s%s", s.Name.Name, n.Name, strings.TrimPrefix(node(fset, m.Type), "func"))
				}
			}
			if len(m.Names) == 0 {
				add("type %s interface, embedded %s", s.Name.Name, node(fset, m.Type))
			}
		}
	default:
		eq := " "
		if s.Assign.IsValid() {
			eq = " = "
		}
		add("type %s%s%s", name, eq, node(fset, s.Type))
	}
}

func exportedRecv(fl *ast.FieldList) bool {
	typ := fl.List[0].Type
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
		case *ast.IndexExpr:
			typ = x.X
		case *ast.IndexListExpr:
			typ = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return false
		}
	}
}

func startsWithName(doc *ast.CommentGroup, name string) bool {
	if doc == nil {
		return false
	}
	text := doc.Text()
	for _, article := range []string{"", "A ", "An ", "The "} {
		if rest, ok := strings.CutPrefix(text, article+name); ok && (rest == "" || !isIdentByte(rest[0])) {
			return true
		}
	}
	return strings.HasPrefix(text, "Deprecated:")
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// node prints an expression on one line.
func node(fset *token.FileSet, n ast.Node) string {
	var b bytes.Buffer
	if err := printer.Fprint(&b, fset, n); err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// lineDiff is what b has that a lacks (added) and the reverse (removed).
func lineDiff(a, b string) (added, removed []string) {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			if l != "" {
				m[l] = true
			}
		}
		return m
	}
	ma, mb := in(a), in(b)
	for l := range mb {
		if !ma[l] {
			added = append(added, l)
		}
	}
	for l := range ma {
		if !mb[l] {
			removed = append(removed, l)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	return added, removed
}
