package luabind

import (
	"os"
	"path/filepath"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// ProtoCache shares compiled chunks between Lua states: a module required
// by every worker is compiled once. An entry is recompiled when the file's
// size or modification time changes. It is safe for concurrent use.
type ProtoCache struct {
	mu      sync.Mutex
	entries map[string]cacheEntry
}

type cacheEntry struct {
	proto *lua.FunctionProto
	size  int64
	mod   time.Time
}

// NewProtoCache returns an empty cache.
func NewProtoCache() *ProtoCache { return &ProtoCache{entries: map[string]cacheEntry{}} }

// CompileFile compiles path, or returns the chunk compiled before if the file
// has not changed since.
func (c *ProtoCache) CompileFile(path string) (*lua.FunctionProto, error) {
	if c == nil {
		return CompileFile(path)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	key, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && e.size == st.Size() && e.mod.Equal(st.ModTime()) {
		return e.proto, nil
	}
	proto, err := CompileFile(path)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.entries[key] = cacheEntry{proto: proto, size: st.Size(), mod: st.ModTime()}
	c.mu.Unlock()
	return proto, nil
}
