package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/luaai/luaai/internal/inspect"
	"github.com/stretchr/testify/require"
)

// Every command is in the overview (luaai help) and the package doc; every
// flag a command defines is in its help text. The flags are read from the
// source: each flag.NewFlagSet("luaai NAME") and the flags defined on it.
func TestEveryFlagIsInItsUsage(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	for _, c := range commands {
		require.Contains(t, usage, "luaai "+c.name, "the overview lists luaai %s", c.name)
		require.Contains(t, string(doc), "luaai "+c.name, "doc.go lists luaai %s", c.name)
		require.True(t, strings.HasPrefix(c.usage, "Usage: luaai "+c.name), "luaai help %s starts with its usage line", c.name)
	}

	flags := flagsBySet(t)
	require.NotEmpty(t, flags["run"], "the run flags were found")
	for name, defined := range flags {
		c, ok := findCommand(name)
		require.True(t, ok, "flag set luaai %s is not a command", name)
		for _, f := range defined {
			require.Regexp(t, `(^|[\s\[,(])--?`+regexp.QuoteMeta(f)+`\b`, c.usage, "luaai %s --%s is not in its help", name, f)
		}
	}
}

// cliDoc is the user documentation of every command and flag.
const cliDoc = "../../docs/cli.md"

// Every command has its section in docs/cli.md ("## luaai NAME"), and every
// flag a command defines is named in its section.
func TestEveryFlagIsInTheCLIDoc(t *testing.T) {
	data, err := os.ReadFile(cliDoc)
	require.NoError(t, err)
	sections := map[string]string{} // command → its section's text
	for _, part := range strings.Split("\n"+string(data), "\n## ")[1:] {
		title, body, _ := strings.Cut(part, "\n")
		if name, ok := strings.CutPrefix(strings.TrimSpace(title), "luaai "); ok {
			sections[name] = body
		}
	}
	for _, c := range commands {
		require.Contains(t, sections, c.name, "docs/cli.md has no section ## luaai %s", c.name)
	}
	flags := flagsBySet(t)
	require.NotEmpty(t, flags["run"], "the run flags were found")
	for name, defined := range flags {
		for _, f := range defined {
			require.Regexp(t, "(^|[\\s\\[,(`|])--?"+regexp.QuoteMeta(f)+`\b`, sections[name], "luaai %s --%s is not in its section of docs/cli.md", name, f)
		}
	}
}

// flagsBySet finds, in each function of the package, a flag set made with
// flag.NewFlagSet("luaai NAME", …) and the names of the flags defined on
// it, directly or by a helper that takes the set (budgetFlag(fs, …)), with
// the helper's flag name a literal or one of its parameters.
func flagsBySet(t *testing.T) map[string][]string {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	var funcs []*ast.FuncDecl
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Body != nil {
				funcs = append(funcs, fn)
			}
		}
	}
	// Helpers: a *flag.FlagSet parameter, and the flags defined on it (a
	// literal name, or the index of the parameter holding it).
	type flagName struct {
		lit   string
		param int
	}
	helpers := map[string][]flagName{}
	for _, fn := range funcs {
		params := map[string]int{}
		setParam := ""
		k := 0
		for _, field := range fn.Type.Params.List {
			for _, n := range field.Names {
				params[n.Name] = k
				if star, ok := field.Type.(*ast.StarExpr); ok {
					if sel, ok := star.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "FlagSet" {
						setParam = n.Name
					}
				}
				k++
			}
		}
		if setParam == "" {
			continue
		}
		eachDefinition(fn.Body, map[string]bool{setParam: true}, func(_ string, arg ast.Expr) {
			switch a := arg.(type) {
			case *ast.BasicLit:
				name, _ := strconv.Unquote(a.Value)
				helpers[fn.Name.Name] = append(helpers[fn.Name.Name], flagName{lit: name, param: -1})
			case *ast.Ident:
				if i, ok := params[a.Name]; ok {
					helpers[fn.Name.Name] = append(helpers[fn.Name.Name], flagName{param: i})
				}
			}
		})
	}
	out := map[string][]string{}
	for _, fn := range funcs {
		sets := map[string]string{} // variable → command
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
				return true
			}
			call, ok := as.Rhs[0].(*ast.CallExpr)
			if !ok || !isCall(call, "flag", "NewFlagSet") {
				return true
			}
			name, _ := strconv.Unquote(call.Args[0].(*ast.BasicLit).Value)
			sets[as.Lhs[0].(*ast.Ident).Name] = strings.TrimPrefix(name, "luaai ")
			return true
		})
		isSet := map[string]bool{}
		for v := range sets {
			isSet[v] = true
		}
		eachDefinition(fn.Body, isSet, func(set string, arg ast.Expr) {
			if lit, ok := arg.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				name, _ := strconv.Unquote(lit.Value)
				out[sets[set]] = append(out[sets[set]], name)
			}
		})
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			id, ok := call.Fun.(*ast.Ident)
			set, ok2 := call.Args[0].(*ast.Ident)
			if !ok || !ok2 || sets[set.Name] == "" {
				return true
			}
			for _, h := range helpers[id.Name] {
				name := h.lit
				if h.param >= 0 && h.param < len(call.Args) {
					if lit, ok := call.Args[h.param].(*ast.BasicLit); ok {
						name, _ = strconv.Unquote(lit.Value)
					}
				}
				if name != "" {
					out[sets[set.Name]] = append(out[sets[set.Name]], name)
				}
			}
			return true
		})
	}
	return out
}

// eachDefinition calls fn with the name argument of every flag defined on
// one of the sets (fs.IntVar(&x, "ticks", …), fs.Func("set", …)).
func eachDefinition(body *ast.BlockStmt, sets map[string]bool, fn func(set string, arg ast.Expr)) {
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok || !sets[x.Name] {
			return true
		}
		arg := -1
		switch m := sel.Sel.Name; {
		case m == "Func" || m == "BoolFunc":
			arg = 0
		case strings.HasSuffix(m, "Var"):
			arg = 1
		case m == "Bool" || m == "String" || m == "Int" || m == "Int64" || m == "Uint" || m == "Uint64" || m == "Float64" || m == "Duration":
			arg = 0
		}
		if arg >= 0 && arg < len(call.Args) {
			fn(x.Name, call.Args[arg])
		}
		return true
	})
}

func isCall(c *ast.CallExpr, pkg, name string) bool {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == pkg && sel.Sel.Name == name
}

// luaai help curve names every curve kind.
func TestCurveUsageNamesEveryKind(t *testing.T) {
	for _, k := range inspect.CurveKinds() {
		require.Contains(t, curveUsage, k)
	}
}
