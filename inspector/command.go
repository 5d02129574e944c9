package inspector

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/luaai/luaai/host"
)

// The page's commands: parsed and bounded on the HTTP side, queued for the
// game goroutine, their results reported back.

// Op is what a Command does: the "op" of the JSON the page posts.
type Op string

// The ops of the inspector's commands.
const (
	OpSend    Op = "send"    // send an event to agents
	OpSet     Op = "set"     // set a context value of agents
	OpPause   Op = "pause"   // pause the game
	OpStep    Op = "step"    // run some ticks while paused
	OpResume  Op = "resume"  // resume the game, or suspended agents when agents are given
	OpRate    Op = "rate"    // change the tick rate
	OpReset   Op = "reset"   // take agents back to their initial state
	OpRespawn Op = "respawn" // respawn agents with a new context
)

// commandJSON is a command as the page posts it.
type commandJSON struct {
	Op      Op              `json:"op"`
	Agent   json.RawMessage `json:"agent"` // an id, a list of ids, or "*"
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload"`
	Path    string          `json:"path"`
	Value   json.RawMessage `json:"value"`
	N       int             `json:"n"`
	Hz      float64         `json:"hz"`
}

// The bounds of a command's values.
const (
	maxCommandDepth = 100
	maxStepTicks    = 100000
	minRateHz       = 0.001
	maxRateHz       = 1e6
)

// ParseCommand reads a command as the inspector's page posts it (JSON:
// {"op":"send","agent":3,"event":"alarm","payload":{…}}, {"op":"set",
// "agent":"*","path":"target.range","value":5}, {"op":"step","n":10},
// {"op":"pause"}, {"op":"resume"}, {"op":"rate","hz":20}; with an agent,
// {"op":"resume","agent":"*"} lets suspended agents tick again;
// {"op":"reset","agent":2} takes agents back to their initial state,
// keeping their context, {"op":"respawn","agent":2} with a new one). A bad one is an
// error wrapping ErrBadCommand that says what is wrong.
func ParseCommand(data []byte) (Command, error) {
	var cj commandJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cj); err != nil {
		return Command{}, fmt.Errorf("%w: %w", ErrBadCommand, err)
	}
	if dec.More() {
		return Command{}, fmt.Errorf("%w: one JSON object, not several", ErrBadCommand)
	}
	c := Command{Op: cj.Op}
	bad := func(format string, args ...any) (Command, error) {
		return Command{}, fmt.Errorf("%w: "+format, append([]any{ErrBadCommand}, args...)...)
	}
	switch cj.Op {
	case OpPause:
	case OpResume:
		if len(cj.Agent) > 0 {
			if err := parseTargets(cj.Agent, &c); err != nil {
				return bad("resume: %w", err)
			}
		}
	case OpReset, OpRespawn:
		if err := parseTargets(cj.Agent, &c); err != nil {
			return bad("%s: %w", cj.Op, err)
		}
	case OpStep:
		c.Steps = max(cj.N, 1)
		if cj.N < 0 || cj.N > maxStepTicks {
			return bad("step: n must be from 1 to %d, not %d", maxStepTicks, cj.N)
		}
	case OpRate:
		if !(cj.Hz >= minRateHz && cj.Hz <= maxRateHz) {
			return bad("rate: hz must be from %g to %g, not %g", minRateHz, maxRateHz, cj.Hz)
		}
		c.Hz = cj.Hz
	case OpSend, OpSet:
		if err := parseTargets(cj.Agent, &c); err != nil {
			return bad("%s: %w", cj.Op, err)
		}
		if cj.Op == OpSend {
			if cj.Event == "" || len(cj.Event) > 200 {
				return bad("send: event must be a name of 1 to 200 bytes")
			}
			c.Event = cj.Event
			v, err := commandValue(cj.Payload)
			if err != nil {
				return bad("send: payload: %w", err)
			}
			c.Payload = v
			break
		}
		parts := strings.Split(cj.Path, ".")
		if cj.Path == "" || len(parts) > 16 {
			return bad("set: path must be a context key or a dotted path of at most 16 keys, not %q", cj.Path)
		}
		for _, p := range parts {
			if p == "" {
				return bad("set: path %q has an empty key", cj.Path)
			}
		}
		if len(cj.Value) == 0 {
			return bad("set: value is missing (JSON; null clears the key)")
		}
		v, err := commandValue(cj.Value)
		if err != nil {
			return bad("set: value: %w", err)
		}
		c.Path, c.Value = parts, v
	case "":
		return bad("op is missing (send, set, pause, step, resume, rate, reset or respawn)")
	default:
		return bad("unknown op %q (want send, set, pause, step, resume, rate, reset or respawn)", cj.Op)
	}
	return c, nil
}

func parseTargets(raw json.RawMessage, c *Command) error {
	if len(raw) == 0 {
		return errors.New(`agent is missing (an id, a list of ids, or "*")`)
	}
	var all string
	if json.Unmarshal(raw, &all) == nil {
		if all != "*" {
			return fmt.Errorf(`agent %q: want an id, a list of ids, or "*"`, all)
		}
		c.All = true
		return nil
	}
	var one int
	if json.Unmarshal(raw, &one) == nil {
		c.Agents = []int{one}
		return nil
	}
	var list []int
	if err := json.Unmarshal(raw, &list); err != nil || len(list) == 0 || len(list) > maxPicked {
		return fmt.Errorf(`agent %s: want an id, a list of 1 to %d ids, or "*"`, clip(string(raw), 40), maxPicked)
	}
	c.Agents = list
	return nil
}

// commandValue decodes a payload or value, no deeper than a message's.
func commandValue(raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	if depthOf(v, 0) > maxCommandDepth {
		return nil, fmt.Errorf("nested more than %d deep", maxCommandDepth)
	}
	return v, host.CheckLists(v) // as every value written from outside
}

func depthOf(v any, d int) int {
	if d > maxCommandDepth {
		return d
	}
	deepest := d
	switch v := v.(type) {
	case []any:
		for _, x := range v {
			deepest = max(deepest, depthOf(x, d+1))
		}
	case map[string]any:
		for _, x := range v {
			deepest = max(deepest, depthOf(x, d+1))
		}
	}
	return deepest
}

// command takes a POSTed command: checked now (its agents included), then
// handed to OnCommand or queued for the next tick.
func (s *shared) command(w http.ResponseWriter, r *http.Request) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxCommandBytes))
	if err != nil {
		httpError(w, http.StatusRequestEntityTooLarge, "a command is at most %d bytes", maxCommandBytes)
		return
	}
	c, err := ParseCommand(data)
	if err != nil {
		httpError(w, http.StatusBadRequest, "%v", err)
		return
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		httpError(w, http.StatusServiceUnavailable, "closed")
		return
	}
	for _, id := range c.Agents {
		if i := sort.SearchInts(s.ids, id); i == len(s.ids) || s.ids[i] != id {
			s.mu.Unlock()
			httpError(w, http.StatusNotFound, "agent %d: %v", id, ErrUnknownAgent)
			return
		}
	}
	if c.Op == OpRate && !s.opts.RateControl {
		s.mu.Unlock()
		httpError(w, http.StatusBadRequest, "rate: this game sets its own tick rate")
		return
	}
	s.seq++
	seq := s.seq
	forward := s.opts.OnCommand
	if forward == nil {
		if len(s.cmds) >= 1024 {
			s.mu.Unlock()
			httpError(w, http.StatusTooManyRequests, "1024 commands are waiting for the next tick already")
			return
		}
		s.cmds = append(s.cmds, queued{seq, c})
	}
	s.sent[seq] = c.Op
	s.mu.Unlock()
	if forward != nil {
		c.Seq = seq
		forward(c)
		if !c.ForAgents() {
			s.result(seq, nil) // the game's pause, step and rate cannot fail
			s.notify()
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	fmt.Fprintf(w, `{"seq":%d}`, seq)
}

// ApplyCommand applies a Command for agents (ForAgents: a send, a set, a
// resume of suspended agents, a reset (host.Agent.Reset) or a respawn
// (host.Agent.Respawn, with the behaviour's context defaults)) to h's agents: what the inspector does
// between ticks, for a game loop that takes the commands itself
// (Options.OnCommand). Other ops are an error wrapping ErrBadCommand; an
// agent h does not have, ErrUnknownAgent. A write that fails for one agent
// (the rule of writes, a path through a non-table) is reported, and the
// others are still written.
func ApplyCommand(h *host.Host, c Command) error {
	if !c.ForAgents() {
		return fmt.Errorf("%w: ApplyCommand takes send, set, reset, respawn and resume with agents, not %q", ErrBadCommand, c.Op)
	}
	var agents []*host.Agent
	if c.All {
		agents = h.Agents()
	} else {
		for _, id := range c.Agents {
			a, ok := h.Agent(id)
			if !ok {
				return fmt.Errorf("agent %d: %w", id, ErrUnknownAgent)
			}
			agents = append(agents, a)
		}
	}
	var errs []error
	var unknown error // the first agent of all whose script lacks the key
	reached := 0
	for _, a := range agents {
		var err error
		switch c.Op {
		case OpSend:
			err = a.Send(c.Event, c.Payload)
		case OpReset:
			err = a.Reset()
		case OpRespawn:
			err = a.Respawn(nil)
		case OpResume:
			if a.Suspended() {
				err = a.Unsuspend()
			} else if !c.All {
				err = errors.New("not suspended")
			}
		case OpSet:
			// The rule of every write from outside the scripts.
			if err = a.Behaviour().CheckWrite(c.Path, c.Value); err == nil {
				err = a.SetPath(c.Path, c.Value)
			}
			if c.All && errors.Is(err, host.ErrUnknownKey) {
				// A set on all reaches the scripts whose context has the
				// key, as luaai run --set does.
				if unknown == nil {
					unknown = fmt.Errorf("agent %d: %w", a.ID(), err)
				}
				continue
			}
			reached++
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("agent %d: %w", a.ID(), err))
		}
	}
	if c.Op == OpSet && reached == 0 && unknown != nil {
		return fmt.Errorf("no agent's context has the key: %w", unknown)
	}
	return errors.Join(errs...)
}
