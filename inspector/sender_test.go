package inspector_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/inspector"
	"github.com/stretchr/testify/require"
)

// A frame's pending events name the agent that sent each: another agent
// (ai.send_to), the agent itself (ai.send), or none for the game's.
func TestInspectorShowsSenders(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("order.lua", `local ai = require("luaai")
return ai.fsm { initial = "a", states = { a = { update = function(ctx)
  if ai.id() == 1 then ai.send_to(2, "order") ai.send("self") end
end } } }`)
	require.NoError(t, err)
	_, err = h.Spawn(b, nil)
	require.NoError(t, err)
	r, err := h.Spawn(b, nil)
	require.NoError(t, err)
	ih := inspector.New(h, inspector.Options{AllowUnauthenticated: true})
	defer ih.Close()
	srv := httptest.NewServer(ih)
	defer srv.Close()
	require.NoError(t, h.Tick(0.1))
	require.NoError(t, r.Send("game", nil))
	require.NoError(t, h.Tick(0.1))
	type ev struct {
		Name   string `json:"name"`
		From   string `json:"from"`
		Sender int    `json:"sender"`
	}
	cases := []struct {
		agent string
		want  []ev
	}{
		{agent: "1", want: []ev{{Name: "self", Sender: 1}}},
		{agent: "2", want: []ev{{Name: "order", From: "message", Sender: 1}}},
	}
	for _, c := range cases {
		res, err := http.Get(srv.URL + "/api/history?agent=" + c.agent + "&tick=2")
		require.NoError(t, err)
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		require.Equal(t, 200, res.StatusCode, string(data))
		var out struct{ Frame struct{ Events []ev } }
		require.NoError(t, json.Unmarshal(data, &out))
		require.Equal(t, c.want, out.Frame.Events, "agent %s: %s", c.agent, data)
	}
}
