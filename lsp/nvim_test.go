package lsp

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNeovim: a real editor. Neovim, headless, attaches `luaai lsp` to a
// script of a project luaai init wrote, through the project's .nvim.lua
// (testdata/nvim/attach.lua loads it), types an unknown state into a to = "…", and gets the
// diagnostic, completion of the machine's states and of the context
// fields, and a jump to a state's definition. Skipped without nvim,
// unless LUAAI_REQUIRE_NVIM=1 (CI sets it).
func TestNeovim(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("LUAAI_REQUIRE_NVIM") == "1" {
			t.Fatal("nvim is not installed, and LUAAI_REQUIRE_NVIM=1 (apt-get install neovim)")
		}
		t.Skip("nvim is not installed (apt-get install neovim)")
	}
	bin := buildLuaai(t)
	tmp := filepath.Dir(bin)
	dir := filepath.Join(tmp, "mod")
	out, err := exec.Command(bin, "init", dir).CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, f := range []string{"guard.lua", "util.lua", "alarm.lua"} {
		data, err := os.ReadFile(testdata(t, "guard", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), data, 0o644))
	}
	result := filepath.Join(tmp, "answers.txt")
	cmd := exec.Command(nvim, "--headless", "--clean", "-n", "-i", "NONE", "-u", testdata(t, "nvim", "attach.lua"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+tmp+string(filepath.ListSeparator)+os.Getenv("PATH"), "LUAAI_NVIM_LUA="+filepath.Join(dir, ".nvim.lua"), "LUAAI_SCRIPT="+filepath.Join(dir, "guard.lua"), "LUAAI_OUT="+result,
		"XDG_STATE_HOME="+tmp, "XDG_DATA_HOME="+tmp, "XDG_CONFIG_HOME="+tmp, "XDG_CACHE_HOME="+tmp)
	nvimOut, err := cmd.CombinedOutput()
	require.NoError(t, err, "nvim: %s", nvimOut)
	data, err := os.ReadFile(result)
	require.NoError(t, err, "nvim wrote no answers: %s", nvimOut)
	answers := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		key, rest, _ := strings.Cut(line, " ")
		answers[key] += rest
		t.Log(line)
	}
	require.Empty(t, answers["failed"], "the script failed")
	assert.Equal(t, "luaai", answers["attached"])
	assert.Contains(t, answers["typed"], `{ to = "alrt", on = "noise" }`)
	// The diagnostic: line 11, on the string alrt (columns 30 to 34), an
	// error (severity 1), saying what is wrong.
	assert.Regexp(t, `^11 30 34 1 state "idle": transition to "alrt": no such state in this machine`, answers["diagnostic"])
	assert.Equal(t, "alert:state alert (fsm),idle:state idle (leaf)", answers["complete-to"])
	assert.Equal(t, "alertness:number = 0,target:string = \"none\",hurt:boolean = false", answers["complete-ctx"])
	// The jump lands on search's key in states (line 17, column 8).
	assert.Equal(t, "17 8 search", answers["definition"])
}

// buildLuaai builds the luaai command into a folder of its own.
func buildLuaai(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "luaai")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/luaai/luaai/cmd/luaai").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// TestBinaryStdin: luaai lsp as an editor starts it, on its real stdin
// and stdout: garbage before a session is skipped and reported on stderr,
// the session is answered and ends with exit code 0; garbage alone ends
// with the input, exit code 1; arguments are a usage error.
func TestBinaryStdin(t *testing.T) {
	bin := buildLuaai(t)
	frame := func(msg string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(msg), msg) }
	run := func(stdin string, args ...string) (int, string, string) {
		cmd := exec.Command(bin, append([]string{"lsp"}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), stdout.String(), stderr.String()
		}
		require.NoError(t, err)
		return 0, stdout.String(), stderr.String()
	}
	garbage := "GET / HTTP/1.1\r\nHost: x\r\n\r\n\x00\xff{}\n" + frame("{not json")
	session := frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`) +
		frame(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`) + frame(`{"jsonrpc":"2.0","method":"exit"}`)
	code, stdout, stderr := run(garbage+session, "--stdio")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, `"serverInfo":{"name":"luaai"`)
	assert.Contains(t, stdout, `"code":-32700`, "the body that is not JSON is answered")
	assert.Contains(t, stderr, "not a message were skipped")

	code, _, stderr = run(garbage)
	assert.Equal(t, 1, code, "the input ended without shutdown")
	assert.Contains(t, stderr, "not JSON-RPC")

	code, _, stderr = run("", "extra")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "luaai lsp: takes no arguments")
}
