package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// Options configure a server. The zero value works: scripts load with the
// engine's default load budget, modules resolve from each script's folder
// and the workspace's scripts/ folder, and the log is discarded.
type Options struct {
	// Roots are folders modules are required from besides each script's
	// own. The default (nil) is the scripts/ folder of the workspace the
	// editor opened, and of the working folder, where they exist.
	Roots []string
	// LoadBudget bounds the run of a script's main chunk when it is
	// checked (host.Options.LoadBudget): a script that never stops
	// loading is stopped and its diagnostic says so. The default (zero)
	// value is the engine's.
	LoadBudget time.Duration
	// Log receives what the server reports about its input (a message it
	// skipped, a request that failed). The default (nil) discards it.
	Log io.Writer
	// Version is the server's version, given to the editor.
	Version string
}

// ErrExitWithoutShutdown is Serve's error when the editor sent exit
// without shutdown first (the protocol's exit code 1).
var ErrExitWithoutShutdown = errors.New("luaai lsp: exit without shutdown")

// Serve runs a language server on rwc (the editor's end of a pipe, or
// stdin and stdout) until the editor sends exit or closes its end. It
// returns nil after shutdown (then exit, or the end of the input),
// ErrExitWithoutShutdown for an exit without shutdown, and io.EOF when
// the input ended without either.
// Nothing the editor sends ends it early: a message it cannot read is
// reported on Options.Log and skipped.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) error {
	s := newServer(opts)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.ctx = ctx
	st := newStream(rwc, s.logf)
	conn := jsonrpc2.NewConn(ctx, st, jsonrpc2.HandlerWithError(s.handle),
		jsonrpc2.SetLogger(logger{s}))
	s.conn = conn
	select {
	case <-conn.DisconnectNotify():
	case <-ctx.Done():
		conn.Close()
	}
	cancel()
	s.loads.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.shutdown:
		return nil
	case s.exited:
		return ErrExitWithoutShutdown
	}
	return io.EOF
}

// server is one editor's session.
type server struct {
	opts    Options
	handler protocol.Handler
	ctx     context.Context
	conn    *jsonrpc2.Conn

	mu       sync.Mutex
	docs     map[string]*document // by URI
	root     string               // the workspace folder, "" when unknown
	shutdown bool
	exited   bool
	loads    sync.WaitGroup
	loadSlot chan struct{} // one check at a time
	folders  *folderEvents
}

func newServer(opts Options) *server {
	s := &server{opts: opts, docs: map[string]*document{}, loadSlot: make(chan struct{}, 1), folders: newFolderEvents()}
	s.handler = protocol.Handler{
		Initialize:                 s.initialize,
		Initialized:                func(*glsp.Context, *protocol.InitializedParams) error { return nil },
		Shutdown:                   s.shutdownReq,
		SetTrace:                   func(*glsp.Context, *protocol.SetTraceParams) error { return nil },
		CancelRequest:              func(*glsp.Context, *protocol.CancelParams) error { return nil },
		TextDocumentDidOpen:        s.didOpen,
		TextDocumentDidChange:      s.didChange,
		TextDocumentDidSave:        s.didSave,
		TextDocumentDidClose:       s.didClose,
		TextDocumentCompletion:     s.completion,
		TextDocumentDefinition:     s.definition,
		TextDocumentHover:          s.hover,
		TextDocumentDocumentSymbol: s.documentSymbol,
		TextDocumentPrepareRename:  s.prepareRename,
		TextDocumentRename:         s.rename,
		WorkspaceDidChangeConfiguration: func(*glsp.Context, *protocol.DidChangeConfigurationParams) error {
			return nil
		},
	}
	return s
}

func (s *server) logf(format string, args ...any) {
	if s.opts.Log != nil {
		fmt.Fprintf(s.opts.Log, strings.TrimSuffix(format, "\n")+"\n", args...)
	}
}

// logger routes jsonrpc2's own reports to the log.
type logger struct{ s *server }

func (l logger) Printf(format string, args ...any) { l.s.logf(format, args...) }

// handle answers one message through glsp's protocol handler; a panic in
// a feature is reported as the request's error, never the server's end.
func (s *server) handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.logf("luaai lsp: %s failed: %v\n%s", req.Method, r, debug.Stack())
			result, err = nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: fmt.Sprintf("luaai lsp: %s failed: %v", req.Method, r)}
		}
	}()
	if req.Method == protocol.MethodExit {
		s.mu.Lock()
		s.exited = true
		s.mu.Unlock()
		conn.Close()
		return nil, nil
	}
	gctx := &glsp.Context{
		Method: req.Method,
		Notify: func(method string, params any) {
			if err := conn.Notify(ctx, method, params); err != nil {
				s.logf("luaai lsp: %s: %v", method, err)
			}
		},
		Call: func(method string, params, result any) {
			if err := conn.Call(ctx, method, params, result); err != nil {
				s.logf("luaai lsp: %s: %v", method, err)
			}
		},
	}
	if req.Params != nil {
		gctx.Params = *req.Params
	}
	r, validMethod, validParams, err := s.handler.Handle(gctx)
	switch {
	case !validMethod:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "luaai lsp: method not supported: " + req.Method}
	case !validParams:
		msg := "luaai lsp: invalid params for " + req.Method
		if err != nil {
			msg += ": " + err.Error()
		}
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: msg}
	case err != nil:
		var rpcErr *jsonrpc2.Error
		if errors.As(err, &rpcErr) {
			return nil, rpcErr
		}
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: err.Error()}
	}
	return r, nil
}

func (s *server) initialize(_ *glsp.Context, p *protocol.InitializeParams) (any, error) {
	s.mu.Lock()
	switch {
	case p.RootURI != nil && *p.RootURI != "":
		s.root = uriPath(*p.RootURI)
	case p.RootPath != nil:
		s.root = *p.RootPath
	}
	s.mu.Unlock()
	yes := true
	full := protocol.TextDocumentSyncKindFull
	version := s.opts.Version
	return protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: protocol.TextDocumentSyncOptions{
				OpenClose: &yes,
				Change:    &full,
				Save:      protocol.SaveOptions{IncludeText: &yes},
			},
			CompletionProvider:     &protocol.CompletionOptions{TriggerCharacters: []string{`"`, "'", "."}},
			DefinitionProvider:     true,
			HoverProvider:          true,
			DocumentSymbolProvider: true,
			RenameProvider:         protocol.RenameOptions{PrepareProvider: &yes},
		},
		ServerInfo: &protocol.InitializeResultServerInfo{Name: "luaai", Version: &version},
	}, nil
}

func (s *server) shutdownReq(*glsp.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shutdown = true
	for _, d := range s.docs {
		if d.cancel != nil {
			d.cancel()
		}
	}
	return nil
}

// roots are the folders modules resolve from besides a script's own.
func (s *server) roots() []string {
	if s.opts.Roots != nil {
		return s.opts.Roots
	}
	var out []string
	for _, base := range []string{s.root, "."} {
		if base == "" {
			continue
		}
		dir := filepath.Join(base, "scripts")
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			abs, _ := filepath.Abs(dir)
			if !containsString(out, abs) {
				out = append(out, abs)
			}
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// uriPath is a file: URI's path ("" for another scheme).
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	p := u.Path
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:] // file:///C:/mods/x.lua
	}
	return filepath.FromSlash(p)
}

// pathURI is a path's file: URI.
func pathURI(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive: file:///C:/mods/x.lua
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// errNoDocument: a request about a document the editor did not open.
var errNoDocument = errors.New("luaai lsp: the document is not open")

// doc returns the open document of a URI and its outline.
func (s *server) doc(uri string) (*document, *outline, error) {
	s.mu.Lock()
	d := s.docs[uri]
	s.mu.Unlock()
	if d == nil {
		return nil, nil, fmt.Errorf("%w: %s", errNoDocument, uri)
	}
	return d, d.outline(), nil
}
