package host_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/luaai/luaai/host"
)

// boundPayloadSrc records what each pending event's payload holds when
// its transition's condition sees it.
const boundPayloadSrc = `local ai = require("luaai")
return ai.fsm { initial = "idle", context = { body = false, seen = "" }, states = {
  idle = { transitions = {
    { to = "idle", on = "bare", when = function(ctx, p) ctx.seen = ctx.seen .. "bare:" .. type(p) .. ";" return false end },
    { to = "idle", on = "hit", when = function(ctx, p)
        ctx.seen = ctx.seen .. "hit:" .. type(p.by) .. "," .. tostring(p.n) .. ";" return false end },
  } },
} }`

type boundPayloadBody struct{ HP int }

// A Go value inside a pending event's payload is not bound again by a
// restore, in either format: it comes back nil, whether it was the whole
// payload or a field of it, and Rebind is asked only for the context's.
func TestBoundPayloadsComeBackNil(t *testing.T) {
	for _, f := range []host.SnapshotFormat{host.SnapshotJSON, host.SnapshotBinary} {
		h, b := boundPayloadHost(t)
		body := &boundPayloadBody{HP: 5}
		a, err := h.Spawn(b, map[string]any{"body": body})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Send("bare", body); err != nil {
			t.Fatal(err)
		}
		if err := a.Send("hit", map[string]any{"by": body, "n": 1}); err != nil {
			t.Fatal(err)
		}
		var doc bytes.Buffer
		if err := h.WriteSnapshotWith(&doc, host.SaveOptions{Format: f}); err != nil {
			t.Fatal(err)
		}
		h.Close()

		h2, b2 := boundPayloadHost(t)
		var paths []string
		got, err := h2.RestoreFrom(&doc, host.RestoreOptions{Rebind: func(_ *host.Agent, path string) any {
			paths = append(paths, path)
			return body
		}}, b2)
		if err != nil {
			t.Fatalf("format %d: %v", f, err)
		}
		if !slices.Equal(paths, []string{"body"}) {
			t.Fatalf("format %d: rebound %q", f, paths)
		}
		if err := h2.Tick(0.1); err != nil {
			t.Fatal(err)
		}
		if seen := got[0].Context()["seen"]; seen != "bare:nil;hit:nil,1;" {
			t.Fatalf("format %d: the payloads read back as %q", f, seen)
		}
		h2.Close()
	}
}

// boundPayloadHost is a host with boundPayloadSrc loaded.
func boundPayloadHost(t *testing.T) (*host.Host, *host.Behaviour) {
	t.Helper()
	h, err := host.New(host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := h.LoadString("bound.lua", boundPayloadSrc)
	if err != nil {
		h.Close()
		t.Fatal(err)
	}
	return h, b
}
