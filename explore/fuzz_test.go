package explore_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luaai/luaai/explore"
	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/fuzzgen"
	"github.com/luaai/luaai/luabind"
	"github.com/stretchr/testify/require"
)

// FuzzExplore explores behaviours written from fuzz bytes: the search
// never fails but for a script that does not load, and the test file it
// writes is always valid Lua.
func FuzzExplore(f *testing.F) {
	for _, seed := range []string{
		"", "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a", strings.Repeat("\x02\x01\x00", 20),
		strings.Repeat("\xff\x7f\x33", 30), "fsm utility states transitions score",
		// Bytes whose definitions load (most random ones do not), so the
		// search itself is fuzzed from the first run.
		"\xff\x9d\x9e\xfd\xa9\xd8\xfacg\xdf?]?\xcaS]\xc1\xa2\xb9\xf7T;\x90\xf9\xe5]\xa3q\xa1\xee*cWu5\xf4þS9\u008cBܽIf",
		"\xf4\x14\xf4\xac$Ȟ\x16\xef\xacV\x85\xb3\xa7\xcf\xcd/\x0e\x1b\xa1\x972%\xbf2[\x1f\x0epO\x15\x96Й\xb1",
		"\xbe־\x86z+p[\x04vk\xed{4\xbeO\x8a*}Cq!\x1el@\xc6hM\x91\xdaAHnZ\r~\xdfH\xc8\xc5",
		"s\x1e\xbd\xc0\xebU\xf6\xb7*G6\xc1\x1d\xbe$\xe4\x02\xa2;\x97\x14\x00mn\\S\xa8\xfb\x82v\u128f\x0e\xc4LwgB\xa0u\xe4P\xa9\bΠ\xe0\xd2v\t\xa9a\x01Y\xb4",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		script := filepath.Join(dir, "def.lua")
		require.NoError(t, os.WriteFile(script, []byte(fuzzgen.Definition(data)), 0o644))
		rep, err := explore.Run(context.Background(), script, explore.Options{
			Runs: 40, Agents: 2, Duration: 20 * time.Second, Host: host.Options{BudgetSteps: 100_000},
		})
		if err != nil {
			require.ErrorIs(t, err, explore.ErrNoScript)
			return
		}
		for _, f := range rep.Findings {
			require.Contains(t, []explore.FailureKind{explore.KindError, explore.KindOverrun, explore.KindMemory}, f.Kind)
			require.NotEmpty(t, f.Words)
		}
		path, err := rep.WriteTest(dir)
		require.NoError(t, err)
		if path == "" {
			require.Empty(t, rep.Findings)
			return
		}
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		_, err = luabind.Compile(strings.NewReader(string(src)), path)
		require.NoError(t, err, "the written test is not Lua:\n%s", src)
	})
}
