package lsp

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/luaai/luaai/internal/inspect"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// TestProtocol drives the server as an editor does, over pipes with real
// LSP messages: initialize, didOpen, didChange, completion, definition,
// hover, documentSymbol, rename, shutdown and exit.
func TestProtocol(t *testing.T) {
	root := testdata(t, "guard")
	path := testdata(t, "guard", "guard.lua")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	text := string(data)
	c := startServer(t, root, Options{})
	uri := c.open(path, text)
	require.Empty(t, c.waitDiags(uri, 1), "guard.lua is clean")

	// A typo in a to: an error at the string.
	typo := strings.Replace(text, `to = "alert"`, `to = "alrt"`, 1)
	c.change(uri, 2, typo)
	diags := c.waitDiags(uri, 2)
	require.Len(t, diags, 1)
	assert.Contains(t, diags[0].Message, `"alrt"`)
	assert.Equal(t, protocol.DiagnosticSeverityError, *diags[0].Severity)
	assert.Equal(t, at(t, typo, `"alrt"`, 1), diags[0].Range.Start, "the range is the string's")
	assert.Equal(t, at(t, typo, `"alrt"`, 5), diags[0].Range.End)

	var list protocol.CompletionList
	// States: the siblings of the state whose transition it is.
	c.call(protocol.MethodTextDocumentCompletion, protocol.CompletionParams{TextDocumentPositionParams: docPos(uri, 0, 0)}, &list)
	assert.Empty(t, list.Items, "nothing to complete in a comment")
	complete := func(needle string, n int) []string {
		t.Helper()
		var list protocol.CompletionList
		p := at(t, typo, needle, n)
		c.call(protocol.MethodTextDocumentCompletion, protocol.CompletionParams{TextDocumentPositionParams: docPos(uri, int(p.Line), int(p.Character))}, &list)
		return labels(list)
	}
	assert.Equal(t, []string{"alert", "idle"}, complete(`to = "alrt"`, 6))
	assert.Equal(t, []string{"look", "recover", "search"}, complete(`to = "search"`, 6))
	assert.Equal(t, []string{"look", "recover", "search"}, complete(`push = "recover"`, 8))
	assert.Equal(t, []string{"look", "recover", "search"}, complete(`initial = "look"`, 11))
	// Events: this script's and its folder's (alarm.lua).
	assert.Equal(t, []string{"hit", "intruder", "noise", "reset"}, complete(`on = "noise"`, 6))
	// Context fields after ctx., with their types from the defaults.
	c.call(protocol.MethodTextDocumentCompletion, protocol.CompletionParams{TextDocumentPositionParams: docPos(uri,
		int(at(t, typo, "ctx.alertness =", 4).Line), int(at(t, typo, "ctx.alertness =", 4).Character))}, &list)
	assert.Equal(t, []string{"alertness", "target", "hurt"}, labels(list))
	assert.Equal(t, "number = 0", *list.Items[0].Detail)
	assert.Equal(t, `string = "none"`, *list.Items[1].Detail)
	assert.Equal(t, "boolean = false", *list.Items[2].Detail)

	// Definition: from a to string to the state; from require to the file.
	var loc protocol.Location
	p := at(t, typo, `to = "search"`, 7)
	c.call(protocol.MethodTextDocumentDefinition, protocol.DefinitionParams{TextDocumentPositionParams: docPos(uri, int(p.Line), int(p.Character))}, &loc)
	assert.Equal(t, uri, loc.URI)
	assert.Equal(t, at(t, typo, "search = {", 0), loc.Range.Start)
	p = at(t, typo, `require("util")`, 10)
	c.call(protocol.MethodTextDocumentDefinition, protocol.DefinitionParams{TextDocumentPositionParams: docPos(uri, int(p.Line), int(p.Character))}, &loc)
	assert.Equal(t, pathURI(testdata(t, "guard", "util.lua")), loc.URI)

	// Hover on a state entered only by a push.
	var hov protocol.Hover
	p = at(t, typo, "recover = {", 2)
	c.call(protocol.MethodTextDocumentHover, protocol.HoverParams{TextDocumentPositionParams: docPos(uri, int(p.Line), int(p.Character))}, &hov)
	value := hoverText(t, hov)
	assert.Contains(t, value, "`alert.recover`")
	assert.Contains(t, value, "entered only by push: `push` from `search`")
	assert.Contains(t, value, "pop after `1`")
	p = at(t, typo, `to = "idle", when`, 7)
	c.call(protocol.MethodTextDocumentHover, protocol.HoverParams{TextDocumentPositionParams: docPos(uri, int(p.Line), int(p.Character))}, &hov)
	assert.Contains(t, hoverText(t, hov), "initial state of the root")

	// The outline.
	var syms []protocol.DocumentSymbol
	c.call(protocol.MethodTextDocumentDocumentSymbol, protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}}, &syms)
	require.Len(t, syms, 1)
	assert.Equal(t, "(root)", syms[0].Name)
	assert.Equal(t, []string{"alert", "idle"}, symbolNames(syms[0].Children))
	assert.Equal(t, []string{"look", "recover", "search"}, symbolNames(syms[0].Children[0].Children))

	// Rename look to watch: its key, the initial naming it, and the
	// renamed entry; the result loads.
	c.change(uri, 3, text)
	require.Empty(t, c.waitDiags(uri, 3))
	p = at(t, text, "look = {", 1)
	var prep protocol.RangeWithPlaceholder
	c.call(protocol.MethodTextDocumentPrepareRename, protocol.PrepareRenameParams{TextDocumentPositionParams: docPos(uri, int(p.Line), int(p.Character))}, &prep)
	assert.Equal(t, "look", prep.Placeholder)
	var edit protocol.WorkspaceEdit
	c.call(protocol.MethodTextDocumentRename, protocol.RenameParams{TextDocumentPositionParams: docPos(uri, int(p.Line), int(p.Character)), NewName: "watch"}, &edit)
	renamed := applyEdits(text, edit.Changes[uri])
	assert.Contains(t, renamed, `initial = "watch"`)
	assert.Contains(t, renamed, `watch = { transitions`)
	assert.Contains(t, renamed, `renamed = { ["alert.look"] = "alert.watch" }`)
	assert.NotContains(t, renamed, `"look"`)
	res := inspect.CheckScript(context.Background(), path, inspect.CheckOptions{Text: []byte(renamed), Roots: []string{root}})
	assert.Empty(t, res.Errors)
	// A second rename keeps one renamed table and points its entry on.
	c.change(uri, 4, renamed)
	require.Empty(t, c.waitDiags(uri, 4))
	p = at(t, renamed, `initial = "watch"`, 12)
	c.call(protocol.MethodTextDocumentRename, protocol.RenameParams{TextDocumentPositionParams: docPos(uri, int(p.Line), int(p.Character)), NewName: "scan"}, &edit)
	twice := applyEdits(renamed, edit.Changes[uri])
	assert.Contains(t, twice, `renamed = { ["alert.watch"] = "alert.scan", ["alert.look"] = "alert.scan" }`)
	res = inspect.CheckScript(context.Background(), path, inspect.CheckOptions{Text: []byte(twice), Roots: []string{root}})
	assert.Empty(t, res.Errors)
	// Renaming onto a sibling, or to a name that is not one, is refused.
	assert.ErrorContains(t, c.callErr(protocol.MethodTextDocumentRename, protocol.RenameParams{TextDocumentPositionParams: docPos(uri, int(p.Line), int(p.Character)), NewName: "search"}), `already has a state "search"`)
	assert.ErrorContains(t, c.callErr(protocol.MethodTextDocumentRename, protocol.RenameParams{TextDocumentPositionParams: docPos(uri, int(p.Line), int(p.Character)), NewName: "not a name"}), "not a state name")
	assert.ErrorContains(t, c.callErr(protocol.MethodTextDocumentPrepareRename, protocol.PrepareRenameParams{TextDocumentPositionParams: docPos(uri, 0, 0)}), "no state is named here")

	require.NoError(t, c.shutdown())
}

func hoverText(t *testing.T, h protocol.Hover) string {
	t.Helper()
	m, ok := h.Contents.(protocol.MarkupContent)
	require.True(t, ok, "hover contents: %#v", h.Contents)
	return m.Value
}

func symbolNames(syms []protocol.DocumentSymbol) []string {
	out := []string{}
	for _, s := range syms {
		out = append(out, s.Name)
	}
	slices.Sort(out)
	return out
}
