package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/luaai/luaai/internal/inspect"
	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind"
	"github.com/luaai/luaai/luabind/defs"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
	lua "github.com/yuin/gopher-lua"
)

// document is one buffer the editor opened.
type document struct {
	uri  string
	path string // "" for a URI that is not a file

	mu      sync.Mutex
	version protocol.Integer
	text    string
	out     *outline // the outline of text, made on first use
	cancel  context.CancelFunc
	// ctxTypes are the types of the context defaults of the last version
	// that loaded (a Lua value's type, and its value when short).
	ctxTypes map[string]ctxDefault
}

type ctxDefault struct{ typ, value string }

// outline returns the outline of the document's text as it is now.
func (d *document) outline() *outline {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.out == nil {
		d.out = newOutline(newSource(d.text))
	}
	return d.out
}

func (s *server) didOpen(_ *glsp.Context, p *protocol.DidOpenTextDocumentParams) error {
	d := &document{uri: p.TextDocument.URI, path: uriPath(p.TextDocument.URI)}
	s.mu.Lock()
	if old := s.docs[d.uri]; old != nil && old.cancel != nil {
		old.cancel()
	}
	s.docs[d.uri] = d
	s.mu.Unlock()
	s.update(d, p.TextDocument.Version, p.TextDocument.Text)
	return nil
}

func (s *server) didChange(_ *glsp.Context, p *protocol.DidChangeTextDocumentParams) error {
	d, _, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return err
	}
	d.mu.Lock()
	text := d.text
	d.mu.Unlock()
	for _, c := range p.ContentChanges {
		switch c := c.(type) {
		case protocol.TextDocumentContentChangeEventWhole:
			text = c.Text
		case protocol.TextDocumentContentChangeEvent:
			// The server asks for whole texts; a client that sends ranges
			// anyway gets them applied.
			src := newSource(text)
			start, end := src.offset(c.Range.Start), src.offset(c.Range.End)
			if end < start {
				start, end = end, start
			}
			text = text[:start] + c.Text + text[end:]
		}
	}
	s.update(d, p.TextDocument.Version, text)
	return nil
}

func (s *server) didSave(_ *glsp.Context, p *protocol.DidSaveTextDocumentParams) error {
	d, _, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return err
	}
	d.mu.Lock()
	text, version := d.text, d.version
	d.mu.Unlock()
	if p.Text != nil {
		text = *p.Text
	}
	// The saved file may change what other buffers require or the events
	// of its folder: check it again, and forget the folder's events.
	s.folders.forget(filepath.Dir(d.path))
	s.update(d, version, text)
	return nil
}

func (s *server) didClose(_ *glsp.Context, p *protocol.DidCloseTextDocumentParams) error {
	s.mu.Lock()
	d := s.docs[p.TextDocument.URI]
	delete(s.docs, p.TextDocument.URI)
	s.mu.Unlock()
	if d != nil {
		d.mu.Lock()
		if d.cancel != nil {
			d.cancel()
		}
		d.mu.Unlock()
		s.publish(p.TextDocument.URI, nil, nil)
	}
	return nil
}

// update sets a document's text and checks it in the background: the
// editor's requests are answered while a script loads, and a newer text
// stops the check of an older one.
func (s *server) update(d *document, version protocol.Integer, text string) {
	d.mu.Lock()
	d.version, d.text, d.out = version, text, nil
	if d.cancel != nil {
		d.cancel()
	}
	ctx, cancel := context.WithCancel(s.ctx)
	d.cancel = cancel
	d.mu.Unlock()
	if d.path == "" {
		cancel()
		return
	}
	s.loads.Add(1)
	go func() {
		defer s.loads.Done()
		defer cancel()
		select {
		case s.loadSlot <- struct{}{}:
		case <-ctx.Done():
			return
		}
		defer func() { <-s.loadSlot }()
		if ctx.Err() != nil {
			return // a newer text came while this one waited
		}
		res := s.check(ctx, d.path, text)
		if ctx.Err() != nil {
			return
		}
		src := newSource(text)
		diags := s.diagnostics(d, src, res)
		if res.Definition != nil {
			types := contextTypes(res.Definition)
			d.mu.Lock()
			d.ctxTypes = types
			d.mu.Unlock()
		}
		v := protocol.UInteger(max(version, 0))
		s.publish(d.uri, &v, diags)
	}()
}

// check runs the check of luaai check on a buffer's text, recovering
// from a failure inside it (reported as a diagnostic).
func (s *server) check(ctx context.Context, path, text string) (res inspect.Result) {
	defer func() {
		if r := recover(); r != nil {
			s.logf("luaai lsp: checking %s failed: %v", path, r)
			res = inspect.Result{Errors: scripterr.ErrorList{{Pos: scripterr.Pos{File: path}, Msg: fmt.Sprintf("luaai could not check this file: %v", r)}}}
		}
	}()
	return inspect.CheckScript(ctx, path, inspect.CheckOptions{
		Roots:      s.roots(),
		Text:       []byte(text),
		Module:     true,
		LoadBudget: s.opts.LoadBudget,
	})
}

func (s *server) publish(uri string, version *protocol.UInteger, diags []protocol.Diagnostic) {
	if diags == nil {
		diags = []protocol.Diagnostic{}
	}
	if err := s.conn.Notify(s.ctx, protocol.ServerTextDocumentPublishDiagnostics,
		protocol.PublishDiagnosticsParams{URI: uri, Version: version, Diagnostics: diags}); err != nil {
		s.logf("luaai lsp: publishing diagnostics: %v", err)
	}
}

// diagnostics turns a check's errors and warnings into the editor's
// diagnostics, each at the range it is about where the line shows it (the
// name or string its message quotes), else at its line.
func (s *server) diagnostics(d *document, src *source, res inspect.Result) []protocol.Diagnostic {
	var diags []protocol.Diagnostic
	out := newOutline(src)
	add := func(list scripterr.ErrorList, sev protocol.DiagnosticSeverity) {
		for _, e := range list {
			diags = append(diags, s.diagnostic(d, out, e, sev))
		}
	}
	add(res.Errors, protocol.DiagnosticSeverityError)
	add(res.Warnings, protocol.DiagnosticSeverityWarning)
	return diags
}

func (s *server) diagnostic(d *document, out *outline, e *scripterr.Error, sev protocol.DiagnosticSeverity) protocol.Diagnostic {
	src := out.src
	source := "luaai"
	diag := protocol.Diagnostic{Severity: &sev, Source: &source, Message: e.Msg}
	if e.Pos.File == "" || samePath(e.Pos.File, d.path) {
		diag.Range = refine(out, e.Pos.Line, e.Msg)
		return diag
	}
	// A problem in another file (a module the script requires): shown at
	// the require naming it, or on the first line.
	diag.Message = e.Error()
	line := requireLine(src, e.Pos.File)
	diag.Range = src.lineRange(line)
	return diag
}

func samePath(a, b string) bool {
	if a == b || filepath.ToSlash(a) == filepath.ToSlash(b) {
		return true
	}
	aa, err1 := filepath.Abs(filepath.FromSlash(a))
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// requireLine is the line of the require("x") whose module is the file
// named, or 1.
func requireLine(src *source, file string) int {
	base := strings.TrimSuffix(filepath.Base(filepath.FromSlash(file)), ".lua")
	toks := src.toks
	for i := 0; i+2 < len(toks); i++ {
		if toks[i].is("require") && toks[i+1].is("(") && toks[i+2].kind == tokString {
			name := toks[i+2].text
			if name == base || strings.HasSuffix(strings.ReplaceAll(name, ".", "/"), "/"+base) {
				return src.lineOf(toks[i].start)
			}
		}
	}
	return 1
}

// refine finds, on a 1-based line, the token a message is about: the last
// name it quotes ("opne") or the field after a ctx. it names, written as
// a string or a name there, or else as a key or string value of the table
// that opens on that line. The whole line when none is.
func refine(out *outline, line int, msg string) protocol.Range {
	src := out.src
	if line < 1 || line > len(src.lines) {
		return src.lineRange(1)
	}
	start := src.lines[line-1]
	end := len(src.text)
	if line < len(src.lines) {
		end = src.lines[line]
	}
	cands := quoted(msg)
	for _, w := range strings.Fields(msg) {
		if f, ok := strings.CutPrefix(w, "ctx."); ok {
			f = strings.TrimRight(f, ",.;:)")
			if i := strings.IndexByte(f, '.'); i >= 0 {
				f = f[:i]
			}
			cands = append(cands, f)
		}
	}
	tokRange := func(t token) protocol.Range {
		if t.kind == tokString {
			return src.rangeOf(t.cStart, t.cEnd)
		}
		return src.rangeOf(t.start, t.end)
	}
	first := src.tokenBefore(start) + 1
	// The table that opens on the line: the machine whose ai.fsm call the
	// line is, the state whose key it is.
	tb := firstTableFrom(out, first, end)
	for i := len(cands) - 1; i >= 0; i-- {
		c := cands[i]
		if c == "" {
			continue
		}
		for j := first; j < len(src.toks) && src.toks[j].start < end; j++ {
			if t := src.toks[j]; t.text == c && (t.kind == tokString || t.kind == tokName) {
				return tokRange(t)
			}
		}
		if tb == nil {
			continue
		}
		for _, e := range tb.entries {
			switch {
			case e.key == c && e.keyTok >= 0:
				return tokRange(src.toks[e.keyTok])
			case e.str >= 0 && src.toks[e.str].text == c:
				return tokRange(src.toks[e.str])
			}
		}
	}
	return src.lineRange(line)
}

// firstTableFrom is the first table whose { is among the tokens from
// first that start before end, or nil.
func firstTableFrom(out *outline, first, end int) *table {
	for j := first; j < len(out.src.toks) && out.src.toks[j].start < end; j++ {
		if out.src.toks[j].is("{") {
			return out.tableAtOpen(j)
		}
	}
	return nil
}

// quoted is every Go-quoted string in a message, in order.
func quoted(msg string) []string {
	var out []string
	for i := 0; i < len(msg); i++ {
		if msg[i] != '"' {
			continue
		}
		prefix, err := strconv.QuotedPrefix(msg[i:])
		if err != nil {
			continue
		}
		if s, err := strconv.Unquote(prefix); err == nil {
			out = append(out, s)
		}
		i += len(prefix) - 1
	}
	return out
}

// contextTypes reads the merged context defaults of a loaded definition:
// each top-level key's Lua type and, when short, its value.
func contextTypes(root *defs.State) map[string]ctxDefault {
	out := map[string]ctxDefault{}
	defs.EachState(root, func(n *defs.Node) {
		if n.Def.Context == nil {
			return
		}
		n.Def.Context.ForEach(func(k, v lua.LValue) {
			ks, ok := k.(lua.LString)
			if !ok {
				return
			}
			if _, seen := out[string(ks)]; seen {
				return
			}
			val := ""
			switch v.Type() {
			case lua.LTNumber, lua.LTBool:
				val = v.String()
			case lua.LTString:
				val = strconv.Quote(v.String())
			}
			if len(val) > 40 {
				val = val[:37] + "..."
			}
			out[string(ks)] = ctxDefault{typ: v.Type().String(), value: val}
		})
	})
	return out
}

// folderEvents caches the on = "…" events of the .lua files of folders,
// by file and modification time.
type folderEvents struct {
	mu    sync.Mutex
	files map[string]fileEvents
}

type fileEvents struct {
	mod    time.Time
	size   int64
	events []string
}

func newFolderEvents() *folderEvents { return &folderEvents{files: map[string]fileEvents{}} }

// forget drops what is known of a folder's files.
func (f *folderEvents) forget(dir string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for p := range f.files {
		if filepath.Dir(p) == dir {
			delete(f.files, p)
		}
	}
}

// maxSiblings bounds the files of a folder read for events.
const maxSiblings = 200

// events is every on = "…" of the .lua files in dir but skip (read with
// the engine's limits on script files).
func (f *folderEvents) events(dir, skip string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	set := map[string]bool{}
	n := 0
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".lua") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if samePath(p, skip) {
			continue
		}
		if n++; n > maxSiblings {
			break
		}
		for _, ev := range f.file(p) {
			set[ev] = true
		}
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (f *folderEvents) file(p string) []string {
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	f.mu.Lock()
	c, ok := f.files[p]
	f.mu.Unlock()
	if ok && c.mod.Equal(fi.ModTime()) && c.size == fi.Size() {
		return c.events
	}
	data, err := luabind.ReadScript(p)
	if err != nil {
		return nil
	}
	src := newSource(string(data))
	evs := newOutline(src).events
	f.mu.Lock()
	f.files[p] = fileEvents{mod: fi.ModTime(), size: fi.Size(), events: evs}
	f.mu.Unlock()
	return evs
}
