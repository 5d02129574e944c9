package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luaai/luaai/luabind"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// machineText is a small machine whose first state's transition targets
// "b": completion inside it proves the server still answers.
const machineText = `local ai = require("luaai")
return ai.fsm {
  initial = "a",
  states = {
    a = { transitions = { { to = "b", on = "go" } } },
    b = {},
  },
}
`

// completeIn asks for completion inside the first to = " of text.
func completeIn(t *testing.T, c *testClient, uri, text string) []string {
	t.Helper()
	p := at(t, text, `to = "`, 6)
	var list protocol.CompletionList
	c.call(protocol.MethodTextDocumentCompletion, protocol.CompletionParams{TextDocumentPositionParams: docPos(uri, int(p.Line), int(p.Character))}, &list)
	return labels(list)
}

// Hostile input: each case gets a clear diagnostic or error, and the
// server goes on answering.
func TestHostileFiles(t *testing.T) {
	dir := t.TempDir()
	// The endless load is stopped by the load budget (CPU time of the
	// loading thread: a busy machine does not hasten it; instruction
	// budgets apply to callbacks, not to loads).
	c := startServer(t, dir, Options{LoadBudget: 100 * time.Millisecond})

	t.Run("a 4 MiB file", func(t *testing.T) {
		pad := "-- " + strings.Repeat("x", 77) + "\n"
		text := strings.Repeat(pad, luabind.MaxScriptSize/len(pad)+1) + machineText
		require.Greater(t, len(text), luabind.MaxScriptSize)
		path := filepath.Join(dir, "big.lua")
		uri := c.open(path, text)
		diags := c.waitDiags(uri, 1)
		require.Len(t, diags, 1)
		assert.Contains(t, diags[0].Message, "larger than the 4194304-byte limit on script files")
		assert.NotContains(t, diags[0].Message, "luaai-check-", "the scratch copy is not named")
		assert.Equal(t, []string{"a", "b"}, completeIn(t, c, uri, text), "the outline still serves")
	})

	t.Run("a file that never stops loading", func(t *testing.T) {
		text := "while true do end\n" + machineText
		path := filepath.Join(dir, "loop.lua")
		uri := c.open(path, text)
		assert.Equal(t, []string{"a", "b"}, completeIn(t, c, uri, text), "answered while it loads")
		diags := c.waitDiags(uri, 1)
		require.Len(t, diags, 1)
		assert.Contains(t, diags[0].Message, "budget")
		assert.Equal(t, protocol.UInteger(0), diags[0].Range.Start.Line, "at the loop")
		t.Log(diags[0].Message)
		// Fixed, it loads.
		c.change(uri, 2, machineText)
		assert.Empty(t, c.waitDiags(uri, 2))
	})

	t.Run("a script requiring /etc/passwd", func(t *testing.T) {
		for i, req := range []string{`require("/etc/passwd")`, `require("../../../../../../etc/passwd")`, `dofile("/etc/passwd")`, `io.open("/etc/passwd")`} {
			text := "local x = " + req + "\n" + machineText
			uri := c.open(filepath.Join(dir, fmt.Sprintf("passwd%d.lua", i)), text)
			diags := c.waitDiags(uri, 1)
			require.NotEmpty(t, diags, req)
			assert.Equal(t, protocol.DiagnosticSeverityError, *diags[0].Severity)
			assert.Equal(t, protocol.UInteger(0), diags[0].Range.Start.Line, req)
			for _, d := range diags {
				assert.NotContains(t, d.Message, "root:", "nothing of the file is shown")
			}
			t.Log(req, "→", diags[0].Message)
		}
	})

	t.Run("a deep nest of tables", func(t *testing.T) {
		text := "local t = " + strings.Repeat("{", 200_000) + strings.Repeat("}", 200_000) + "\n" + machineText
		uri := c.open(filepath.Join(dir, "deep.lua"), text)
		assert.Equal(t, []string{"a", "b"}, completeIn(t, c, uri, text))
		diags := c.waitDiags(uri, 1)
		require.NotEmpty(t, diags)
		t.Log(diags[0].Message)
		// Unclosed, the machine is inside the nest: nothing to offer,
		// and an answer all the same.
		open := "local t = " + strings.Repeat("{", 200_000) + "\n" + machineText
		uri = c.open(filepath.Join(dir, "deep2.lua"), open)
		assert.Empty(t, completeIn(t, c, uri, open))
		require.NotEmpty(t, c.waitDiags(uri, 1))
	})

	require.NoError(t, c.shutdown())
}

// TestEndlessLoadIsStoppedByNewText: with no load budget at all, a load
// that never ends is stopped by the next text of its buffer (and the
// server answers meanwhile), and by shutdown.
func TestEndlessLoadIsStoppedByNewText(t *testing.T) {
	dir := t.TempDir()
	c := startServer(t, dir, Options{LoadBudget: -1})
	text := "while true do end\n" + machineText
	uri := c.open(filepath.Join(dir, "loop.lua"), text)
	assert.Equal(t, []string{"a", "b"}, completeIn(t, c, uri, text), "answered while it loads")
	c.change(uri, 2, machineText)
	assert.Empty(t, c.waitDiags(uri, 2))
	uri = c.open(filepath.Join(dir, "loop2.lua"), text)
	assert.Equal(t, []string{"a", "b"}, completeIn(t, c, uri, text))
	require.NoError(t, c.shutdown(), "shutdown stops the load it waits for")
}

// TestGarbageInput: bytes that are not messages are skipped and reported
// on the log, a framed body that is not JSON-RPC is answered with a parse
// error, and the next real request is answered.
func TestGarbageInput(t *testing.T) {
	dir := t.TempDir()
	c := startServer(t, dir, Options{})
	for _, junk := range []string{
		"hello, server\r\n\r\n",
		"\x00\x01\x02\xff\xfe binary\n\n",
		"Content-Length: 7\r\n\r\n{bad}!!",
		"Content-Length: 5\r\n\r\n[1,2]",
		"Content-Length: nope\r\n\r\n",
		"Content-Type: text/plain\r\nX: y\r\n\r\n",
		strings.Repeat("z", 1<<20) + "\n", // a megabyte without a line break
	} {
		_, err := c.raw.Write([]byte(junk))
		require.NoError(t, err)
		uri := c.open(filepath.Join(dir, "m.lua"), machineText)
		assert.Equal(t, []string{"a", "b"}, completeIn(t, c, uri, machineText), "after %q", junk)
	}
	log := c.stderr.String()
	assert.Contains(t, log, "bytes of input that are not a message were skipped")
	assert.Contains(t, log, "a message that is not JSON-RPC was skipped")
	assert.Contains(t, log, `a bad Content-Length "nope" was skipped`)

	// Requests it cannot serve are errors, not the end.
	assert.ErrorContains(t, c.callErr("textDocument/formatting", map[string]any{}), "method not supported")
	assert.ErrorContains(t, c.callErr(protocol.MethodTextDocumentHover, map[string]any{"textDocument": 5}), "invalid params")
	assert.ErrorContains(t, c.callErr(protocol.MethodTextDocumentHover, protocol.HoverParams{TextDocumentPositionParams: docPos("file:///nowhere.lua", 0, 0)}), "not open")
	require.NoError(t, c.shutdown())
}

// TestExitWithoutShutdown: the protocol's exit code 1 case is Serve's
// error; the end of the input is io.EOF.
func TestExitWithoutShutdown(t *testing.T) {
	c := startServer(t, t.TempDir(), Options{})
	c.notify(protocol.MethodExit, nil)
	require.ErrorIs(t, <-c.served, ErrExitWithoutShutdown)
}

// TestLoadsInScriptsFolder: a module required from the workspace's
// scripts/ folder resolves there, as luaai run resolves it.
func TestLoadsInScriptsFolder(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "scripts"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "scripts", "shared.lua"), []byte("return { x = 1 }\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "mods"), 0o755))
	c := startServer(t, dir, Options{})
	text := "local shared = require(\"shared\")\n" + machineText
	path := filepath.Join(dir, "mods", "m.lua")
	uri := c.open(path, text)
	assert.Empty(t, c.waitDiags(uri, 1))
	p := at(t, text, `require("shared")`, 10)
	var loc protocol.Location
	c.call(protocol.MethodTextDocumentDefinition, protocol.DefinitionParams{TextDocumentPositionParams: docPos(uri, int(p.Line), int(p.Character))}, &loc)
	assert.Equal(t, pathURI(filepath.Join(dir, "scripts", "shared.lua")), loc.URI)
	require.NoError(t, c.shutdown())
}

// TestModuleErrorsAndLifecycle: an error in a required module is shown at
// the require naming it; a save checks again; a close clears the
// diagnostics; hover on ctx.X tells its default or that none declares it.
func TestModuleErrorsAndLifecycle(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "helper.lua"), []byte("local x = = 1\nreturn {}\n"), 0o644))
	c := startServer(t, dir, Options{})
	text := "local ai = require(\"luaai\")\n\nlocal h = require(\"helper\")\n" + strings.Replace(machineText, "local ai = require(\"luaai\")\n", "", 1)
	path := filepath.Join(dir, "m.lua")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	uri := c.open(path, text)
	diags := c.waitDiags(uri, 1)
	require.Len(t, diags, 1)
	assert.Contains(t, diags[0].Message, "helper.lua:1:")
	assert.Equal(t, protocol.UInteger(2), diags[0].Range.Start.Line, "at the require")

	// The module fixed on disk, the buffer saved: checked again.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "helper.lua"), []byte("return {}\n"), 0o644))
	c.notify(protocol.MethodTextDocumentDidSave, protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}})
	assert.Empty(t, c.waitDiags(uri, 1))

	// Hover on context fields.
	withCtx := strings.Replace(text, `initial = "a",`, `initial = "a", context = { hp = 10 },`, 1)
	withCtx = strings.Replace(withCtx, `b = {},`, `b = { enter = function(ctx) ctx.hp = ctx.mana end },`, 1)
	c.change(uri, 2, withCtx)
	require.NotEmpty(t, c.waitDiags(uri, 2), "ctx.mana is read and declared nowhere")
	var hov protocol.Hover
	p := at(t, withCtx, "ctx.hp =", 5)
	c.call(protocol.MethodTextDocumentHover, protocol.HoverParams{TextDocumentPositionParams: docPos(uri, int(p.Line), int(p.Character))}, &hov)
	assert.Equal(t, "**context field** `hp`: number\n\ndefault: `10`", hoverText(t, hov))
	p = at(t, withCtx, "ctx.mana", 5)
	c.call(protocol.MethodTextDocumentHover, protocol.HoverParams{TextDocumentPositionParams: docPos(uri, int(p.Line), int(p.Character))}, &hov)
	assert.Contains(t, hoverText(t, hov), "in no context defaults")

	c.notify(protocol.MethodTextDocumentDidClose, protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}})
	assert.Empty(t, c.waitDiags(uri, 0), "closing clears its diagnostics")
	require.NoError(t, c.shutdown())
}
