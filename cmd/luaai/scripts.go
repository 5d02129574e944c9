package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/luaai/luaai/host"
)

// Where a run's scripts live and what they share: the roots modules are
// required from, the host options every command starts from, and how --set
// settings spread over several scripts.

// scriptRootsAll is the roots of several scripts: each one's folder, then
// ./scripts, each once.
func scriptRootsAll(scripts []string) []string {
	var out []string
	for _, s := range scripts {
		for _, r := range scriptRoots(s) {
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	return out
}

// checkSettings refuses a --set that no script's context has (with one
// script, overrides says so with a did-you-mean).
func checkSettings(settings []setting, bs []*host.Behaviour) error {
	if len(bs) < 2 {
		return nil
	}
	for _, s := range settings {
		known := false
		for _, b := range bs {
			if _, ok := b.Default(s.path[:1]); ok {
				known = true
			}
		}
		if !known {
			return fmt.Errorf("--set %s: %q is not a key of any script's context", strings.Join(s.path, "."), s.path[0])
		}
	}
	return nil
}

// settingsFor is the --set settings for b: all of them in a single-script
// run; with several scripts those whose key b's context has.
func settingsFor(settings []setting, b *host.Behaviour, scripts int) []setting {
	if scripts < 2 {
		return settings
	}
	var out []setting
	for _, s := range settings {
		if _, ok := b.Default(s.path[:1]); ok {
			out = append(out, s)
		}
	}
	return out
}

// engineOptions is the host.Options every command that runs a script
// starts from (run, bench, replay, check): the script's folder and
// ./scripts as roots, the seed and the workers. Each adds its hooks.
func engineOptions(script string, seed uint64, workers int) host.Options {
	return host.Options{Seed: seed, Workers: workers, Roots: scriptRoots(script)}
}
