package luaai_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/hosttool"
	"github.com/luaai/luaai/internal/inspect"
	"github.com/luaai/luaai/luabind"
	"github.com/luaai/luaai/luabind/defs"
	"github.com/luaai/luaai/luatest"
	"github.com/stretchr/testify/require"
)

// TestDocs runs every example in docs/*.md, so the docs cannot rot. The
// conventions, which the docs follow:
//
//   - A ```lua block whose first line is a comment naming a file
//     (`-- hungry.lua`, `-- hungry_test.lua`) is written under that name into
//     a folder of its own for the document. A *_test.lua file is run by the
//     test runner (luaai test) and must pass with at least one test. Any
//     other named file that returns a machine must load with no error and
//     no warning, unless its name starts with "broken" (shown to `luaai
//     check`).
//   - A ```lua block without a file name is run in a fresh host: when it
//     returns a machine, that machine must load with no error and no
//     warning; otherwise it must run without error.
//   - A ```go block is a whole program: it is built against this module and
//     run from the module root, and must exit 0.
//   - A ```sh block's lines that start with "luaai " are run with the luaai
//     command, from the document's folder (where its named files are), in
//     order; none may be a usage error (exit 2). Lines with --watch are not
//     run (they never end).
//   - A ```text block right after the line <!-- output --> is the exact
//     stdout of the ```go or ```sh block before it.
//   - A block whose info string says "fragment" after the language
//     (```lua fragment, ```go fragment) is part of a program, shown to be
//     read: it is not run.
func TestDocs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs programs")
	}
	docs, err := filepath.Glob("docs/*.md")
	require.NoError(t, err)
	require.NotEmpty(t, docs)
	root, err := os.Getwd()
	require.NoError(t, err)
	cli := buildCLI(t, root)
	for _, doc := range docs {
		t.Run(filepath.Base(doc), func(t *testing.T) {
			blocks := docBlocks(t, doc)
			if len(blocks) == 0 {
				t.Skip("no examples in this document")
			}
			dir := t.TempDir()
			for _, b := range blocks {
				if b.lang == "lua" && b.file != "" {
					require.NoError(t, os.WriteFile(filepath.Join(dir, b.file), []byte(b.text), 0o644))
				}
			}
			var goBlocks []docBlock
			for _, b := range blocks {
				switch b.lang {
				case "lua":
					checkLuaBlock(t, dir, b)
				case "go":
					goBlocks = append(goBlocks, b)
				case "sh":
					checkShellBlock(t, dir, cli, b)
				}
			}
			checkGoBlocks(t, root, goBlocks)
		})
	}
}

// docBlock is one fenced code block of a document.
type docBlock struct {
	doc      string
	line     int    // of the opening fence
	lang     string // lua, go, sh, text, ...
	fragment bool   // ```lua fragment: shown, not run
	text     string
	file     string  // lua: the file named by the first line
	output   *string // the ```text block after <!-- output -->, if any
}

func (b docBlock) where() string { return fmt.Sprintf("%s:%d", b.doc, b.line) }

var fileComment = regexp.MustCompile(`^--\s*([\w.-]+\.lua)\s*$`)

// docBlocks reads the fenced blocks of a Markdown file, attaching each
// <!-- output --> text block to the block before it.
func docBlocks(t *testing.T, path string) []docBlock {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var blocks []docBlock
	var cur *docBlock
	var body strings.Builder
	wantOutput := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if cur == nil {
			if strings.TrimSpace(line) == "<!-- output -->" {
				wantOutput = true
				continue
			}
			if lang, ok := strings.CutPrefix(line, "```"); ok {
				info := strings.Fields(lang)
				cur = &docBlock{doc: path, line: n}
				if len(info) > 0 {
					cur.lang = info[0]
				}
				if len(info) > 1 {
					require.Equal(t, []string{"fragment"}, info[1:], "%s: the only word allowed after a block's language is fragment", cur.where())
					cur.fragment = true
				}
				body.Reset()
			} else if strings.TrimSpace(line) != "" {
				wantOutput = false
			}
			continue
		}
		if line == "```" {
			cur.text = body.String()
			if wantOutput {
				require.Equal(t, "text", cur.lang, "%s: <!-- output --> must be followed by a ```text block", cur.where())
				require.NotEmpty(t, blocks, "%s: output of nothing", cur.where())
				out := cur.text
				blocks[len(blocks)-1].output = &out
				wantOutput = false
			} else if !cur.fragment {
				if cur.lang == "lua" {
					first, _, _ := strings.Cut(cur.text, "\n")
					if m := fileComment.FindStringSubmatch(first); m != nil {
						cur.file = m[1]
					}
				}
				blocks = append(blocks, *cur)
			}
			cur = nil
			continue
		}
		body.WriteString(line)
		body.WriteByte('\n')
	}
	require.NoError(t, sc.Err())
	require.Nil(t, cur, "%s: unclosed code block", path)
	return blocks
}

func checkLuaBlock(t *testing.T, dir string, b docBlock) {
	h, err := host.New(host.Options{Workers: 1, Roots: []string{dir}, Stdout: &bytes.Buffer{}})
	require.NoError(t, err)
	defer h.Close()
	var vm *defs.VM
	require.NoError(t, hosttool.RunLua(h, func(v *defs.VM) error { vm = v; return nil }))
	switch {
	case strings.HasSuffix(b.file, "_test.lua"):
		var out bytes.Buffer
		r, err := luatest.RunFile(h, filepath.Join(dir, b.file), &out, luatest.Options{})
		require.NoError(t, err, "%s: %s:\n%s", b.where(), b.file, out.String())
		require.Zero(t, r.Failed, "%s: %s fails:\n%s", b.where(), b.file, out.String())
		require.NotZero(t, r.Passed, "%s: %s runs no test", b.where(), b.file)
	case b.file != "":
		if strings.HasPrefix(b.file, "broken") {
			return
		}
		v, err := vm.RunFile(filepath.Join(dir, b.file))
		require.NoError(t, err, b.where())
		if _, ok := defs.MachineValue(v); ok {
			def, err := vm.LoadBehaviour(filepath.Join(dir, b.file))
			require.NoError(t, err, b.where())
			require.Empty(t, inspect.Lint(def), "%s: %s has warnings", b.where(), b.file)
		}
	default:
		v, err := vm.RunString("example.lua", b.text)
		require.NoError(t, err, b.where())
		if m, ok := defs.MachineValue(v); ok {
			require.Empty(t, defs.CheckRoot(m, "example.lua"), b.where())
			require.Empty(t, inspect.Lint(m), "%s: warnings", b.where())
			_, err := h.LoadString("example.lua", b.text)
			require.NoError(t, err, b.where())
		}
	}
}

// buildCLI builds cmd/luaai for the ```sh blocks.
func buildCLI(t *testing.T, root string) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "luaai")
	_, stderr, err := runTool(t, root, 5*time.Minute, goTool(t), "build", "-o", exe, "./cmd/luaai")
	require.NoError(t, err, "go build ./cmd/luaai:\n%s", stderr)
	return exe
}

func checkShellBlock(t *testing.T, dir, cli string, b docBlock) {
	var stdout strings.Builder
	ran := false
	for _, line := range strings.Split(b.text, "\n") {
		line = strings.TrimSpace(line)
		args, ok := strings.CutPrefix(line, "luaai ")
		if !ok || strings.Contains(line, "--watch") {
			continue
		}
		if i := strings.Index(args, " #"); i >= 0 { // a trailing comment
			args = args[:i]
		}
		ran = true
		out, errOut, err := runTool(t, dir, time.Minute, cli, shellWords(t, args)...)
		stdout.WriteString(out)
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			require.NotEqual(t, 2, exit.ExitCode(), "%s: %q is a usage error:\n%s", b.where(), line, errOut)
		} else {
			require.NoError(t, err, b.where())
		}
	}
	if b.output != nil {
		require.True(t, ran, "%s: an output for a block that runs nothing", b.where())
		require.Equal(t, *b.output, stdout.String(), "%s: the output shown differs", b.where())
	}
}

// shellWords splits a command line on spaces, honouring '…' and "…".
func shellWords(t *testing.T, s string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	inWord := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	require.Zero(t, quote, "unclosed quote in %q", s)
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

// checkGoBlocks builds every Go block as a program inside a copy of this
// module (its go.mod and go.sum, its packages), so the build needs exactly
// the modules `go test` itself needed and nothing else — a fresh machine
// with an empty module cache builds them as it builds the tests. Each
// program then runs from the module root.
func checkGoBlocks(t *testing.T, root string, blocks []docBlock) {
	if len(blocks) == 0 {
		return
	}
	mod := copyModule(t, root)
	var pkgs []string
	for i, b := range blocks {
		name := fmt.Sprintf("example%d", i+1)
		dir := filepath.Join(mod, "docexamples", name)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(b.text), 0o644))
		pkgs = append(pkgs, "./docexamples/"+name)
	}
	bin := t.TempDir()
	cmd := exec.Command(goTool(t), append([]string{"build", "-o", bin + string(filepath.Separator)}, pkgs...)...)
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		var where []string
		for i, b := range blocks {
			where = append(where, fmt.Sprintf("example%d = %s", i+1, b.where()))
		}
		t.Fatalf("the Go examples do not build:\n%s\n(%s)", out, strings.Join(where, ", "))
	}
	for i, b := range blocks {
		exe := filepath.Join(bin, fmt.Sprintf("example%d", i+1))
		stdout, stderr, err := runTool(t, root, time.Minute, exe)
		require.NoError(t, err, "%s:\n%s%s", b.where(), stdout, stderr)
		if b.output != nil {
			require.Equal(t, *b.output, stdout, "%s: the output shown differs", b.where())
		}
	}
}

// copyModule copies the module's go.mod, go.sum and Go packages with the
// files they embed (not .git, not testdata, not tests) into a fresh folder.
func copyModule(t *testing.T, root string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "docs") {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		// Files a package embeds (//go:embed): the inspector's page, the
		// editor definitions, an example's script; and a package's
		// assembly (host/internal/prefetch).
		embedded := false
		switch filepath.Ext(rel) {
		case ".lua", ".js", ".html", ".css", ".s":
			embedded = true
		}
		if !(strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go")) && rel != "go.mod" && rel != "go.sum" && !embedded {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	require.NoError(t, err)
	return dst
}

// luaReference is the page where every function of the luaai module and
// every curve kind is documented.
const luaReference = "docs/lua-reference.md"

// referenceText is the Lua reference, where the documentation of every
// function and curve kind is looked for.
func referenceText(t *testing.T) string {
	t.Helper()
	ref, err := os.ReadFile(luaReference)
	require.NoError(t, err)
	return string(ref)
}

// Every function of the luaai module is documented in the Lua reference
// (the editor definitions are checked in luabind/defs).
func TestDocsNameEveryExport(t *testing.T) {
	ref := referenceText(t)
	vm := defs.NewVM(luabind.Options{})
	defer vm.Close()
	for _, name := range vm.Exports() {
		require.Regexp(t, `\bai\.`+regexp.QuoteMeta(name)+`\b`, ref, "ai.%s is not in %s", name, luaReference)
	}
}

// Every curve kind is in the Lua reference.
func TestDocsNameEveryCurveKind(t *testing.T) {
	ref := referenceText(t)
	for _, k := range defs.CurveKinds() {
		require.Contains(t, ref, "`"+k+"`", "curve kind %s is not in %s", k, luaReference)
	}
}

// The Go version the README asks for is the one go.mod needs, and the
// README and docs speak to users: no contract, no section numbers of it, no
// planning labels or issue numbers.
func TestReadmeFacts(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	mod, err := os.ReadFile("go.mod")
	require.NoError(t, err)
	goLine := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(mod)
	require.NotNil(t, goLine)
	require.Contains(t, string(readme), "Needs Go "+string(goLine[1])+" or later")
	docs, err := filepath.Glob("docs/*.md")
	require.NoError(t, err)
	for _, f := range append(docs, "README.md") {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NotRegexp(t, `SPEC|\bP\d+\b|seed book|seed document|issue \d+|(?i)\bcontract\b|\bspecification\b`, string(data), f)
	}
}

// Every relative link of the README and the docs leads to a file, and a
// link with an #anchor to a heading of its Markdown target (named as
// GitHub names headings).
func TestDocLinks(t *testing.T) {
	docs, err := filepath.Glob("docs/*.md")
	require.NoError(t, err)
	anchors := map[string]map[string]bool{} // Markdown file → its anchors
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		a := map[string]bool{}
		for _, h := range markdownHeadings(string(data)) {
			a[h] = true
		}
		anchors[path] = a
		return a
	}
	checked := 0
	for _, doc := range append([]string{"README.md"}, docs...) {
		data, err := os.ReadFile(doc)
		require.NoError(t, err)
		for _, l := range markdownLinks(string(data)) {
			target, anchor, _ := strings.Cut(l.target, "#")
			path := doc
			if target != "" {
				path = filepath.Join(filepath.Dir(doc), filepath.FromSlash(target))
				_, err := os.Stat(path)
				require.NoError(t, err, "%s:%d: the link %q leads nowhere", doc, l.line, l.target)
			}
			if anchor != "" {
				require.True(t, strings.HasSuffix(path, ".md"), "%s:%d: an anchor into %s, which is not Markdown", doc, l.line, path)
				require.True(t, anchorsOf(path)[anchor], "%s:%d: %s has no heading #%s", doc, l.line, path, anchor)
			}
			checked++
		}
	}
	require.NotZero(t, checked)
}

// docLink is one link of a Markdown file: its target and its line.
type docLink struct {
	target string
	line   int
}

var (
	mdLink       = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	mdCodeSpan   = regexp.MustCompile("`+[^`]*`+")
	mdLinkInText = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	mdNotInSlug  = regexp.MustCompile(`[^\p{L}\p{M}\p{N}\p{Pc} -]`)
	mdExternal   = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	mdHeading    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
)

// markdownLinks finds the links and images of a Markdown text outside code
// blocks and code spans, leaving out those to other sites (a scheme:).
func markdownLinks(text string) []docLink {
	var out []docLink
	inCode := false
	for n, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		line = mdCodeSpan.ReplaceAllString(line, "")
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			if !mdExternal.MatchString(m[1]) {
				out = append(out, docLink{target: m[1], line: n + 1})
			}
		}
	}
	return out
}

// markdownHeadings gives the anchors GitHub makes of a Markdown text's
// headings: the heading's text (a link's text, a code span's content),
// lower case, without punctuation but hyphens and underscores, spaces as
// hyphens; a repeated anchor gets -1, -2, … .
func markdownHeadings(text string) []string {
	var out []string
	seen := map[string]int{}
	inCode := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inCode = !inCode
			continue
		}
		m := mdHeading.FindStringSubmatch(line)
		if inCode || m == nil {
			continue
		}
		title := strings.TrimSpace(m[1])
		title = mdLinkInText.ReplaceAllString(title, "$1")
		slug := strings.ReplaceAll(mdNotInSlug.ReplaceAllString(strings.ToLower(title), ""), " ", "-")
		if k := seen[slug]; k > 0 {
			seen[slug] = k + 1
			slug = fmt.Sprintf("%s-%d", slug, k)
		} else {
			seen[slug] = 1
		}
		out = append(out, slug)
	}
	return out
}

// The anchors GitHub gives headings, as markdownHeadings computes them.
func TestDocLinkAnchors(t *testing.T) {
	for _, c := range []struct{ heading, anchor string }{
		{"# The Lua dialect", "the-lua-dialect"},
		{"## Where the frame goes: --profile", "where-the-frame-goes---profile"},
		{"### --set", "--set"},
		{"## One behaviour, 10,000 agents", "one-behaviour-10000-agents"},
		{"## What still differs from PUC Lua 5.1", "what-still-differs-from-puc-lua-51"},
		{"## `ai.send_to` limits", "aisend_to-limits"},
		{"## Changing it while it runs: --watch", "changing-it-while-it-runs---watch"},
		{"## See [the CLI](cli.md)", "see-the-cli"},
	} {
		require.Equal(t, []string{c.anchor}, markdownHeadings(c.heading), c.heading)
	}
	require.Equal(t, []string{"hot-reload", "x", "hot-reload-1"}, markdownHeadings("## Hot reload\n## x\n```\n# not a heading\n```\n### Hot reload"))
}
