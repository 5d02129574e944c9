package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/stretchr/testify/require"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// pipeEnd is one end of a pair of pipes: what the other end writes is
// read here.
type pipeEnd struct {
	io.Reader
	io.WriteCloser
}

func (p pipeEnd) Close() error { return p.WriteCloser.Close() }

// testClient is an editor talking to a server over pipes with real LSP
// messages.
type testClient struct {
	t      *testing.T
	conn   *jsonrpc2.Conn
	raw    io.Writer // the server's input, for writing bytes that are not messages
	diags  chan protocol.PublishDiagnosticsParams
	served chan error
	stderr *syncBuffer
}

// startServer starts Serve on pipes and a client on their other ends,
// initialized with root as the workspace.
func startServer(t *testing.T, root string, opts Options) *testClient {
	t.Helper()
	cr, sw := io.Pipe() // server → client
	sr, cw := io.Pipe() // client → server
	c := &testClient{t: t, raw: cw, diags: make(chan protocol.PublishDiagnosticsParams, 1000),
		served: make(chan error, 1), stderr: &syncBuffer{}}
	if opts.Log == nil {
		opts.Log = c.stderr
	}
	go func() {
		c.served <- Serve(context.Background(), pipeEnd{sr, sw}, opts)
		sw.Close()
	}()
	c.conn = jsonrpc2.NewConn(context.Background(),
		jsonrpc2.NewBufferedStream(pipeEnd{cr, cw}, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
			if req.Method == protocol.ServerTextDocumentPublishDiagnostics && req.Params != nil {
				var p protocol.PublishDiagnosticsParams
				if err := json.Unmarshal(*req.Params, &p); err == nil {
					c.diags <- p
				}
			}
			return nil, nil
		}))
	t.Cleanup(func() { c.conn.Close(); cw.Close() })
	uri := pathURI(root)
	var res protocol.InitializeResult
	c.call(protocol.MethodInitialize, protocol.InitializeParams{RootURI: &uri}, &res)
	require.Equal(t, "luaai", res.ServerInfo.Name)
	c.notify(protocol.MethodInitialized, protocol.InitializedParams{})
	return c
}

func (c *testClient) call(method string, params, result any) {
	c.t.Helper()
	require.NoError(c.t, c.conn.Call(context.Background(), method, params, result), method)
}

// callErr makes a call that is expected to fail, and returns its error.
func (c *testClient) callErr(method string, params any) error {
	var out json.RawMessage
	return c.conn.Call(context.Background(), method, params, &out)
}

func (c *testClient) notify(method string, params any) {
	c.t.Helper()
	require.NoError(c.t, c.conn.Notify(context.Background(), method, params), method)
}

// open opens a file of the workspace with the given text (its own when
// text is "").
func (c *testClient) open(path, text string) string {
	c.t.Helper()
	if text == "" {
		data, err := os.ReadFile(path)
		require.NoError(c.t, err)
		text = string(data)
	}
	uri := pathURI(path)
	c.notify(protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: uri, LanguageID: "lua", Version: 1, Text: text}})
	return uri
}

func (c *testClient) change(uri string, version int, text string) {
	c.t.Helper()
	c.notify(protocol.MethodTextDocumentDidChange, protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}, Version: protocol.Integer(version)},
		ContentChanges: []any{protocol.TextDocumentContentChangeEventWhole{Text: text}}})
}

// waitDiags waits for the diagnostics of uri's version (nil: any), and
// returns them.
func (c *testClient) waitDiags(uri string, version int) []protocol.Diagnostic {
	c.t.Helper()
	for p := range c.diags {
		if p.URI == uri && (version == 0 || p.Version != nil && int(*p.Version) == version) {
			return p.Diagnostics
		}
	}
	c.t.Fatal("the connection closed")
	return nil
}

// shutdown ends the session as an editor does, and returns Serve's
// result.
func (c *testClient) shutdown() error {
	c.t.Helper()
	c.call(protocol.MethodShutdown, nil, nil)
	c.notify(protocol.MethodExit, nil)
	return <-c.served
}

func pos(line, char int) protocol.Position {
	return protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(char)}
}

func docPos(uri string, line, char int) protocol.TextDocumentPositionParams {
	return protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: pos(line, char)}
}

// labels are the labels of a completion list.
func labels(list protocol.CompletionList) []string {
	out := []string{}
	for _, it := range list.Items {
		out = append(out, it.Label)
	}
	return out
}

// testdata returns the absolute path of a file under testdata.
func testdata(t *testing.T, parts ...string) string {
	p, err := filepath.Abs(filepath.Join(append([]string{"testdata"}, parts...)...))
	require.NoError(t, err)
	return p
}

// syncBuffer is a log the server writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// at is the position of the n-th byte after the first occurrence of
// needle in text (n may be len(needle): just after it).
func at(t *testing.T, text, needle string, n int) protocol.Position {
	t.Helper()
	i := strings.Index(text, needle)
	require.GreaterOrEqual(t, i, 0, "%q is not in the text", needle)
	return newSource(text).position(i + n)
}

// applyEdits applies an LSP rename's edits to text, as an editor does.
func applyEdits(text string, edits []protocol.TextEdit) string {
	src := newSource(text)
	type span struct {
		start, end int
		text       string
	}
	var spans []span
	for _, e := range edits {
		spans = append(spans, span{src.offset(e.Range.Start), src.offset(e.Range.End), e.NewText})
	}
	sort.SliceStable(spans, func(a, b int) bool { return spans[a].start > spans[b].start })
	for _, s := range spans {
		text = text[:s.start] + s.text + text[s.end:]
	}
	return text
}
