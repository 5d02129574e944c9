package main

import (
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/luaai/luaai/types"
)

const initUsage = `Usage: luaai init DIR

Writes a mod project into DIR (made if it does not exist): a first
behaviour (door.lua), its tests (door_test.lua), and the editor set-up for
lua-language-server (.luarc.json, and types/luaai.lua with the definitions
of require("luaai")) and for luaai lsp beside it (.vscode/settings.json for
the Generic LSP Client extension, .helix/languages.toml, .nvim.lua). An
existing file is never overwritten. Then:

  cd DIR
  luaai run door.lua --watch    # edit door.lua and save: it reloads
  luaai test .

Exit codes: 0 written; 1 a file could not be written or already exists;
2 a usage error.
`

const typesUsage = `Usage: luaai types

Prints the LuaLS definitions of require("luaai") (types/luaai.lua) on
stdout, for an editor: luaai types > types/luaai.lua
`

//go:embed _skeleton/door.lua _skeleton/door_test.lua _skeleton/luarc.json _skeleton/vscode-settings.json _skeleton/helix-languages.toml _skeleton/nvim.lua
var skeleton embed.FS

// initCmd writes a mod project into a folder.
func initCmd(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("luaai init", flag.ContinueOnError)
	pos, err := parseArgs(flags, args)
	if err != nil {
		return parseFailed(err, stdout, stderr, initUsage)
	}
	if len(pos) != 1 {
		return usageError(stderr, "init", initUsage, "want one DIR, got %d arguments", len(pos))
	}
	dir := pos[0]
	files := []struct {
		name string
		data []byte
	}{
		{"door.lua", mustRead("_skeleton/door.lua")},
		{"door_test.lua", mustRead("_skeleton/door_test.lua")},
		{".luarc.json", mustRead("_skeleton/luarc.json")},
		{filepath.Join("types", "luaai.lua"), types.LuaAI},
		// luaai lsp beside lua-language-server (docs/editors.md).
		{filepath.Join(".vscode", "settings.json"), mustRead("_skeleton/vscode-settings.json")},
		{filepath.Join(".helix", "languages.toml"), mustRead("_skeleton/helix-languages.toml")},
		{".nvim.lua", mustRead("_skeleton/nvim.lua")},
	}
	// Check everything before writing anything: a half-written project is
	// worse than none.
	for _, f := range files {
		if _, err := os.Lstat(filepath.Join(dir, f.name)); err == nil {
			fmt.Fprintf(stderr, "luaai init: %s already exists: nothing written\n", filepath.Join(dir, f.name))
			return exitFail
		} else if !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "luaai init: %v\n", err)
			return exitFail
		}
	}
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			fmt.Fprintf(stderr, "luaai init: %v\n", err)
			return exitFail
		}
		if err := os.WriteFile(path, f.data, 0o644); err != nil {
			fmt.Fprintf(stderr, "luaai init: %v\n", err)
			return exitFail
		}
		fmt.Fprintf(stdout, "wrote %s\n", path)
	}
	fmt.Fprintf(stdout, "next: cd %s && luaai run door.lua --watch\n", dir)
	return exitOK
}

func mustRead(name string) []byte {
	data, err := skeleton.ReadFile(name)
	if err != nil {
		panic(err) // embedded at build time: cannot be missing
	}
	return data
}

// typesCmd prints the luaai module's LuaLS definitions.
func typesCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("luaai types", flag.ContinueOnError)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return parseFailed(err, stdout, stderr, typesUsage)
	}
	if len(pos) != 0 {
		return usageError(stderr, "types", typesUsage, "takes no arguments, got %q", pos)
	}
	if _, err := stdout.Write(types.LuaAI); err != nil {
		fmt.Fprintf(stderr, "luaai types: %v\n", err)
		return exitFail
	}
	return exitOK
}
