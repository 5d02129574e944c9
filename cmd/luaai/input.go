package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/safefile"
)

// An input line (README: The CLI; SPEC: the CLI, live) drives a run from
// outside: {"tick":N,"agent":A,"send":E,"payload":P} queues an event,
// {"tick":N,"agent":A,"set":{…}} writes context fields; "agent":"*" is
// every agent; each line applies before tick N. From stdin (--input -) a
// line may leave out "tick": it applies before the next tick.
type inputLine struct {
	where   string // "FILE:LINE", for messages
	tick    int    // 0: before the next tick
	all     bool
	agent   int
	send    string
	payload any
	set     map[string]any
}

// maxInputFile bounds what --input FILE reads.
const maxInputFile = 64 << 20

func parseInputLine(where, text string, needTick bool) (inputLine, error) {
	l := inputLine{where: where}
	var raw struct {
		Tick    *float64        `json:"tick"`
		Agent   json.RawMessage `json:"agent"`
		Send    *string         `json:"send"`
		Payload any             `json:"payload"`
		Set     map[string]any  `json:"set"`
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return l, fmt.Errorf("%s: not an input line (%v)", where, err)
	}
	if dec.More() {
		return l, fmt.Errorf("%s: one JSON object a line", where)
	}
	switch {
	case raw.Tick != nil:
		t := *raw.Tick
		if t < 1 || t != math.Trunc(t) || t > 1<<53 {
			return l, fmt.Errorf("%s: tick must be a whole number ≥ 1, got %v", where, t)
		}
		l.tick = int(t)
	case needTick:
		return l, fmt.Errorf(`%s: "tick" is missing`, where)
	}
	switch a := strings.TrimSpace(string(raw.Agent)); {
	case a == "":
		return l, fmt.Errorf(`%s: "agent" is missing (an id, or "*" for every agent)`, where)
	case a == `"*"`:
		l.all = true
	default:
		var id float64
		if err := json.Unmarshal(raw.Agent, &id); err != nil || id < 1 || id != math.Trunc(id) {
			return l, fmt.Errorf(`%s: "agent" must be an agent id or "*", got %s`, where, a)
		}
		l.agent = int(id)
	}
	switch {
	case raw.Send != nil && raw.Set != nil:
		return l, fmt.Errorf(`%s: "send" or "set", not both`, where)
	case raw.Send != nil:
		if *raw.Send == "" {
			return l, fmt.Errorf(`%s: "send" needs an event name`, where)
		}
		l.send, l.payload = *raw.Send, raw.Payload
	case raw.Set != nil:
		if raw.Payload != nil {
			return l, fmt.Errorf(`%s: "payload" goes with "send"`, where)
		}
		l.set = raw.Set
	default:
		return l, fmt.Errorf(`%s: "send" or "set" is missing`, where)
	}
	return l, nil
}

// runInput is the input of a run: lines waiting for their tick, and, from
// stdin, the lines still coming.
type runInput struct {
	pending []inputLine // by tick, then in the order given
	live    chan inputLine
	errs    chan error
}

// loadInput reads --input FILE whole: a bad line is an error naming its
// file and line, before anything runs.
func loadInput(path string) (*runInput, error) {
	data, err := safefile.ReadRegular(path, maxInputFile)
	if err != nil {
		return nil, err
	}
	in := &runInput{}
	for i, text := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		l, err := parseInputLine(fmt.Sprintf("%s:%d", path, i+1), string(text), true)
		if err != nil {
			return nil, err
		}
		in.pending = append(in.pending, l)
	}
	sort.SliceStable(in.pending, func(i, j int) bool { return in.pending[i].tick < in.pending[j].tick })
	return in, nil
}

// liveInput reads lines from r as they come (--input -); a bad line is
// reported and skipped.
func liveInput(r io.Reader) *runInput {
	in := &runInput{live: make(chan inputLine, 64), errs: make(chan error, 64)}
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for n := 1; sc.Scan(); n++ {
			text := strings.TrimSpace(sc.Text())
			if text == "" {
				continue
			}
			l, err := parseInputLine(fmt.Sprintf("input:%d", n), text, false)
			if err != nil {
				in.errs <- err
				continue
			}
			in.live <- l
		}
		if err := sc.Err(); err != nil && !errors.Is(err, io.EOF) {
			in.errs <- fmt.Errorf("input: %w", err)
		}
	}()
	return in
}

// apply applies, before tick, every line due by then, in order; what
// cannot be applied (an unknown agent, a context value Lua cannot take) is
// reported on stderr and the run goes on.
func (in *runInput) apply(h *host.Host, tick int, stderr io.Writer) {
	if in == nil {
		return
	}
	for drained := false; !drained; {
		select {
		case l := <-in.live:
			if l.tick == 0 {
				l.tick = tick
			}
			in.pending = append(in.pending, l)
		case err := <-in.errs:
			fmt.Fprintln(stderr, err)
		default:
			drained = true
		}
	}
	sort.SliceStable(in.pending, func(i, j int) bool { return in.pending[i].tick < in.pending[j].tick })
	n := 0
	for n < len(in.pending) && in.pending[n].tick <= tick {
		in.pending[n].applyTo(h, stderr)
		n++
	}
	in.pending = in.pending[n:]
}

func (l *inputLine) applyTo(h *host.Host, stderr io.Writer) {
	var agents []*host.Agent
	if l.all {
		agents = h.Agents()
	} else if a, ok := h.Agent(l.agent); ok {
		agents = []*host.Agent{a}
	} else {
		fmt.Fprintf(stderr, "%s: no agent %d\n", l.where, l.agent)
		return
	}
	keys := make([]string, 0, len(l.set))
	for k := range l.set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, a := range agents {
		if l.send != "" {
			if err := a.Send(l.send, l.payload); err != nil {
				fmt.Fprintf(stderr, "%s: %v\n", l.where, err)
			}
			continue
		}
		for _, k := range keys {
			if err := a.Set(k, l.set[k]); err != nil {
				fmt.Fprintf(stderr, "%s: set %s: %v\n", l.where, k, err)
			}
		}
	}
}
