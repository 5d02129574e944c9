package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/plainjson"
	"github.com/luaai/luaai/internal/safefile"
	"github.com/luaai/luaai/internal/suggest"
)

// An input line (docs/cli.md: The CLI) drives a run from
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
	assign  []assignment // set A key=value, checked against the field's value
	resume  bool         // resume A: let suspended agents tick again
	reset   bool         // reset A: back to the initial state, the context kept
	respawn bool         // respawn A: back to the initial state with a new context
	show    bool         // show A: print the state, the stack and the context

	// A control command (pause, step, resume, help): the run loop takes it
	// at once, not before a tick.
	control string
	steps   int // step N
}

// assignment is one key=value of the set command: a dotted path and the
// text of its value, read as --set reads one when it is applied.
type assignment struct {
	path []string
	raw  string
}

// commandHelp is what help prints.
const commandHelp = `commands (A is an agent id, or * for every agent):
  send A EVENT [json]   queue EVENT for A, with a JSON payload
  set A key=value ...   write context fields (key may be a dotted path; value as --set reads it)
  pause                 stop ticking
  step [N]              run N ticks (default 1), then pause
  resume                tick again
  resume A              let suspended agents (A, or * for all) tick again
  reset A               back to the initial state, the context kept (an agent stuck on its stack)
  respawn A             back to the initial state with a new context (the defaults and --set)
  show A                print the state, what is paused under it, and the context
  help                  this list`

var commandNames = []string{"send", "set", "pause", "step", "resume", "reset", "respawn", "show", "help"}

// parseCommand reads a command line (docs/cli.md: The CLI, Commands): what a modder
// types with --watch in a terminal, or sends on --input -.
//
// It is long because it is one switch over the commands, each case the
// few checks of its arguments, in the order help lists them.
func parseCommand(where, text string) (inputLine, error) {
	l := inputLine{where: where}
	name, rest, _ := strings.Cut(text, " ")
	rest = strings.TrimSpace(rest)
	usage := func(format string, args ...any) (inputLine, error) {
		return l, fmt.Errorf("%s: %s: %s", where, name, fmt.Sprintf(format, args...))
	}
	target := func() (string, bool) {
		a, more, _ := strings.Cut(rest, " ")
		rest = strings.TrimSpace(more)
		if a == "*" {
			l.all = true
			return a, true
		}
		id, err := strconv.Atoi(a)
		if err != nil || id < 1 {
			return a, false
		}
		l.agent = id
		return a, true
	}
	switch name {
	case "send":
		if a, ok := target(); !ok {
			return usage("want send A EVENT [json], with A an agent id or *; got %q", a)
		}
		event, payload, _ := strings.Cut(rest, " ")
		if event == "" {
			return usage("want send A EVENT [json]: the event is missing")
		}
		l.send = event
		if payload = strings.TrimSpace(payload); payload != "" {
			dec := json.NewDecoder(strings.NewReader(payload))
			if err := dec.Decode(&l.payload); err != nil || dec.More() {
				return usage("the payload is not one JSON value: %s", payload)
			}
			if err := host.CheckLists(l.payload); err != nil {
				return usage("the payload: %v", err)
			}
		}
	case "set":
		if a, ok := target(); !ok {
			return usage("want set A key=value, with A an agent id or *; got %q", a)
		}
		if rest == "" {
			return usage("want set A key=value: the key=value is missing")
		}
		var err error
		if l.assign, err = parseAssignments(rest); err != nil {
			return usage("%v", err)
		}
	case "resume":
		if rest == "" {
			l.control = name // the run ticks again
			break
		}
		// resume A: suspended agents tick again.
		if a, ok := target(); !ok || rest != "" {
			return usage("want resume (the run) or resume A (suspended agents), with A an agent id or *; got %q", a+" "+rest)
		}
		l.resume = true
	case "reset", "respawn", "show":
		if a, ok := target(); !ok || rest != "" {
			return usage("want %s A, with A an agent id or *; got %q", name, strings.TrimSpace(a+" "+rest))
		}
		l.reset, l.respawn, l.show = name == "reset", name == "respawn", name == "show"
	case "pause", "help":
		if rest != "" {
			return usage("takes nothing, got %q", rest)
		}
		l.control = name
	case "step":
		l.control, l.steps = name, 1
		if rest != "" {
			n, err := strconv.Atoi(rest)
			if err != nil || n < 1 || n > 1_000_000 {
				return usage("want step [N] with N from 1 to 1000000, got %q", rest)
			}
			l.steps = n
		}
	default:
		msg := fmt.Sprintf("%s: unknown command %q", where, name)
		if best := suggest.Closest(name, commandNames); best != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", best)
		}
		return l, errors.New(msg + `; help lists the commands (a JSON input line starts with "{")`)
	}
	return l, nil
}

// parseAssignments reads the key=value words of a set command.
func parseAssignments(text string) ([]assignment, error) {
	var out []assignment
	for _, kv := range strings.Fields(text) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("want key=value, got %q", kv)
		}
		path := strings.Split(k, ".")
		if slices.Contains(path, "") {
			return nil, fmt.Errorf("%q: an empty name in the key", k)
		}
		out = append(out, assignment{path: path, raw: v})
	}
	return out, nil
}

// jsonProblem says what is wrong with an input line in a modder's words,
// never Go's types: `"send" must be a string, got a number`.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		want := map[string]string{"tick": "a number", "send": "a string", "set": "an object of key: value", "resume": "true or false", "reset": "true or false", "respawn": "true or false"}[te.Field]
		if want == "" {
			want = "another kind of value"
		}
		got := te.Value
		switch got {
		case "number", "string", "object", "array", "bool":
			got = map[string]string{"number": "a number", "string": "a string", "object": "an object", "array": "an array", "bool": "a boolean"}[got]
		}
		return fmt.Sprintf("%q must be %s, got %s", te.Field, want, got)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("not JSON at byte %d: %v", se.Offset, se)
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if field, ok := strings.CutPrefix(msg, "unknown field "); ok {
		name, _ := strconv.Unquote(field)
		if best := suggest.Closest(name, []string{"tick", "agent", "send", "payload", "set", "resume", "reset", "respawn"}); best != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", best)
		}
	}
	return msg
}

// checkAgents refuses, before the run, lines of an --input file for
// agents the run does not have.
func (in *runInput) checkAgents(h *host.Host) error {
	if in == nil {
		return nil
	}
	for _, l := range in.pending {
		if l.all {
			continue
		}
		if _, ok := h.Agent(l.agent); !ok {
			return fmt.Errorf("%s: no agent %d (the run has %d)", l.where, l.agent, h.Len())
		}
	}
	return nil
}

// maxInputFile bounds what --input FILE reads.
const maxInputFile = 64 << 20

// parseInputLine reads one JSON input line (where names it in messages);
// needTick: a line of a file must say its tick.
//
// It is long because it checks each field of the line in the order the
// format gives them, each with the message a modder needs.
func parseInputLine(where, text string, needTick bool) (inputLine, error) {
	l := inputLine{where: where}
	var raw struct {
		Tick    *float64        `json:"tick"`
		Agent   json.RawMessage `json:"agent"`
		Send    *string         `json:"send"`
		Payload any             `json:"payload"`
		Set     map[string]any  `json:"set"`
		Resume  bool            `json:"resume"`
		Reset   bool            `json:"reset"`
		Respawn bool            `json:"respawn"`
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return l, fmt.Errorf("%s: not an input line (%s)", where, jsonProblem(err))
	}
	if dec.More() {
		return l, fmt.Errorf("%s: one JSON object a line", where)
	}
	for _, f := range []struct {
		name string
		v    any
	}{{"payload", raw.Payload}, {"set", raw.Set}} {
		if err := host.CheckLists(f.v); err != nil {
			return l, fmt.Errorf("%s: %q: %w", where, f.name, err)
		}
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
	alone := 0
	for _, b := range []bool{raw.Resume, raw.Reset, raw.Respawn, raw.Send != nil || raw.Set != nil} {
		if b {
			alone++
		}
	}
	switch {
	case alone > 1 && (raw.Resume || raw.Reset || raw.Respawn):
		return l, fmt.Errorf(`%s: "resume", "reset" and "respawn" each go alone`, where)
	case raw.Resume:
		l.resume = true
	case raw.Reset:
		l.reset = true
	case raw.Respawn:
		l.respawn = true
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
		return l, fmt.Errorf(`%s: "send", "set", "resume", "reset" or "respawn" is missing`, where)
	}
	return l, nil
}

// runInput is the input of a run: lines waiting for their tick, and, from
// stdin, the lines still coming.
type runInput struct {
	pending []inputLine // by tick, then in the order given
	live    chan inputLine
	errs    chan error
	over    spawnOverrides // what respawn gives a new context
	// refused counts the lines of --input FILE that could not be applied
	// (an unknown agent, a value of the wrong type): the run then exits 1,
	// as a scripted scenario in CI should. The lines of --input - and the
	// console's are reported and do not count (counts false).
	refused int
	counts  bool
}

// spawnOverrides is what the run spawned an agent of b with (--set): a
// respawn gives the new context the same.
type spawnOverrides func(b *host.Behaviour) map[string]any

// loadInput reads --input FILE whole: a bad line is an error naming its
// file and line, before anything runs.
func loadInput(path string) (*runInput, error) {
	data, err := safefile.ReadRegular(path, maxInputFile)
	if err != nil {
		return nil, err
	}
	in := &runInput{counts: true}
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
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	return readInput(func() (string, error) {
		if sc.Scan() {
			return sc.Text(), nil
		}
		if err := sc.Err(); err != nil {
			return "", err
		}
		return "", io.EOF
	})
}

// readInput reads lines from next until it fails, in a goroutine: JSON
// input lines, or commands. A bad line is reported and skipped.
func readInput(next func() (string, error)) *runInput {
	in := &runInput{live: make(chan inputLine, 64), errs: make(chan error, 64)}
	go func() {
		for n := 1; ; n++ {
			text, err := next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					in.errs <- fmt.Errorf("input: %w", err)
				}
				return
			}
			text = strings.TrimSpace(text)
			if text == "" {
				continue
			}
			var l inputLine
			if where := fmt.Sprintf("input:%d", n); strings.HasPrefix(text, "{") {
				l, err = parseInputLine(where, text, false)
			} else {
				l, err = parseCommand(where, text)
			}
			if err != nil {
				in.errs <- err
				continue
			}
			in.live <- l
		}
	}()
	return in
}

// apply applies, before tick, every line due by then, in order (the run
// loop takes the lines from stdin into pending as they come); what
// cannot be applied (an unknown agent, a context value Lua cannot take) is
// reported on stderr and the run goes on.
func (in *runInput) apply(h *host.Host, tick int, stderr io.Writer, rec *recorder) {
	if in == nil {
		return
	}
	sort.SliceStable(in.pending, func(i, j int) bool { return in.pending[i].tick < in.pending[j].tick })
	n := 0
	for n < len(in.pending) && in.pending[n].tick <= tick {
		if in.pending[n].applyTo(h, stderr, in.over) != nil {
			in.refused++
		}
		if !in.pending[n].show {
			rec.input(tick, in.pending[n])
		}
		n++
	}
	in.pending = in.pending[n:]
}

// applyTo applies the line to its agents, reporting on stderr what each
// did or why it could not; over is what a respawn gives a new context.
//
// It is long because it is one case for each kind of line (reset, respawn
// and show; resume; the console's set; send; the JSON set), each reporting
// agent by agent.
func (l *inputLine) applyTo(h *host.Host, stderr io.Writer, over spawnOverrides) error {
	var errs []error
	report := func(err error) {
		fmt.Fprintf(stderr, "%s: %v\n", l.where, err)
		errs = append(errs, err)
	}
	var agents []*host.Agent
	if l.all {
		agents = h.Agents()
	} else if a, ok := h.Agent(l.agent); ok {
		agents = []*host.Agent{a}
	} else {
		report(fmt.Errorf("no agent %d", l.agent))
		return errors.Join(errs...)
	}
	keys := make([]string, 0, len(l.set))
	for k := range l.set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if l.all && (len(l.set) > 0 || len(l.assign) > 0) {
		// A set on all reaches the scripts whose context has the key, as
		// --set does; a key no script has is refused once.
		var err error
		if agents, err = havingKeys(agents, l); err != nil {
			report(err)
			return errors.Join(errs...)
		}
	}
	for _, a := range agents {
		if l.reset || l.respawn || l.show {
			if err := restart(a, l, over, stderr); err != nil {
				report(err)
			}
			continue
		}
		if l.resume {
			switch {
			case a.Suspended():
				if err := a.Unsuspend(); err != nil {
					report(fmt.Errorf("agent %d: %w", a.ID(), err))
				} else {
					fmt.Fprintf(stderr, "agent %d resumed\n", a.ID())
				}
			case !l.all:
				report(fmt.Errorf("agent %d is not suspended", a.ID()))
			}
			continue
		}
		if len(l.assign) > 0 {
			for _, as := range l.assign {
				if err := as.applyTo(a); err != nil {
					report(fmt.Errorf("agent %d: %w", a.ID(), err))
					continue
				}
				// What the set did, as the context now holds it.
				v := a.Get(as.path[0])
				for _, k := range as.path[1:] {
					m, _ := v.(map[string]any)
					v = m[k]
				}
				data, _ := json.Marshal(plainjson.Safe(v))
				fmt.Fprintf(stderr, "agent %d: %s = %s\n", a.ID(), strings.Join(as.path, "."), data)
			}
			continue
		}
		if l.send != "" {
			if err := a.Send(l.send, l.payload); err != nil {
				report(err)
			}
			continue
		}
		for _, k := range keys {
			// A key with dots is a path into a table of the context, as
			// for --set; the value follows the same rule.
			path := strings.Split(k, ".")
			err := a.Behaviour().CheckWrite(path, l.set[k])
			if err == nil {
				err = a.SetPath(path, l.set[k])
			}
			if err != nil {
				report(fmt.Errorf("agent %d: set %s: %w", a.ID(), k, err))
			}
		}
	}
	return errors.Join(errs...)
}

// applyTo writes the assignment into a's context, by the rule of every
// write from outside the scripts (host's CheckWrite), the value read as
// --set reads one.
func (as assignment) applyTo(a *host.Agent) error {
	key := strings.Join(as.path, ".")
	b := a.Behaviour()
	def, _ := b.Default(as.path)
	v := decodeValue(as.raw, def)
	if err := host.CheckLists(v); err != nil {
		return fmt.Errorf("set %s: %w", key, err)
	}
	if err := b.CheckWrite(as.path, v); err != nil {
		if errors.Is(err, host.ErrValueType) {
			return fmt.Errorf("set %s=%s: %w", key, as.raw, err)
		}
		return fmt.Errorf("set %s: %w", key, err)
	}
	return a.SetPath(as.path, v)
}
