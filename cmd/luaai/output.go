package main

// What luaai run prints: text lines or JSON objects, on stdout and stderr.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/luaai/luaai/internal/plainjson"

	"github.com/luaai/luaai/host"
)

// runOutput prints what a run reports: text or JSON lines on stdout,
// buffered and flushed at least once a tick; script errors and reloads on
// stderr.
type runOutput struct {
	stdout   io.Writer
	w        *bufio.Writer // over stdout, or over a held buffer during a reload
	enc      *json.Encoder
	stderr   io.Writer // the real one, or a held buffer during a reload
	prog     *progress // the progress line on stderr, nil when not a terminal
	json     bool
	failed   bool     // a callback raised an error
	added    []string // context keys the last reload added (OnReload)
	resumed  int      // suspended agents the last reload resumed (OnReload)
	vanished []string // active states the last reload removed (OnReload)
	moved    int      // agents that were in them

	// Errors, tallied by where they failed (every one reaches scriptError:
	// run sets ReportAllErrors and throttles here): printed at the first,
	// tenth, hundredth… of each, suspensions grouped by cause at the end
	// of their tick, a summary at the end of the run.
	errTally  map[errWhere]*tally
	errTotal  int
	errAgents map[int]bool
	suspended []*host.ScriptError // this tick's suspensions, not yet printed

	// traceOnly, from --trace 1,5: the agents whose trace lines print;
	// nil for every agent.
	traceOnly map[int]bool
	// trace: --trace, whose transition lines name the event that fired
	// them and its sender.
	trace bool
	// changes, from --trace-changes: an agent's line only when its state
	// or context changed, with the keys that changed; last is what each
	// agent's line showed last (its state, and each key's JSON).
	changes bool
	last    map[int]traceMemo

	printMu sync.Mutex // print() runs on every worker's goroutine
}

func newRunOutput(stdout, stderr io.Writer, jsonLines bool) *runOutput {
	w := bufio.NewWriter(stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &runOutput{stdout: stdout, w: w, enc: enc, stderr: stderr, json: jsonLines}
}

// flush writes the buffered lines, first erasing the progress line (if one
// is drawn) so they do not land on it.
func (o *runOutput) flush() {
	if o.w.Buffered() > 0 {
		o.prog.clear()
	}
	o.w.Flush()
}

// printer is where scripts' print() goes: the buffered stdout, in order with
// the ticks' lines, or stderr in --json mode so that stdout stays one JSON
// object a line.
func (o *runOutput) printer() io.Writer { return printWriter{o} }

type printWriter struct{ o *runOutput }

// Write is called from the workers' goroutines during a tick, when the
// run loop writes nothing else, and from the run loop between ticks.
func (p printWriter) Write(b []byte) (int, error) {
	p.o.printMu.Lock()
	defer p.o.printMu.Unlock()
	if p.o.json {
		return p.o.stderr.Write(b)
	}
	return p.o.w.Write(b)
}

type reloadLine struct {
	Tick   int    `json:"tick"`
	Reload string `json:"reload"`
}

// reload runs reload (a Behaviour.Reload) and reports its result: "reload
// ok: SCRIPT" or "reload failed: file:line: message" lines on stderr, and a
// reload line on stdout in JSON mode. What the reload itself reports
// (transitions of kind "reload", on_reload errors and logs) is held back and
// printed after it. tick is the number of ticks done.
func (o *runOutput) reload(tick int, script string, reload func() error) error {
	o.flush()
	var held, heldErr bytes.Buffer
	stderr := o.stderr
	o.w.Reset(&held)
	o.stderr = &heldErr
	err := reload()
	o.flush()
	o.w.Reset(o.stdout)
	o.stderr = stderr

	o.prog.clear()
	if err == nil {
		var notes []string
		if len(o.added) > 0 {
			notes = append(notes, "context keys added: "+strings.Join(o.added, ", "))
		}
		if o.resumed > 0 {
			notes = append(notes, fmt.Sprintf("%d suspended agent%s resumed", o.resumed, plural(o.resumed)))
		}
		if o.moved > 0 {
			q := make([]string, len(o.vanished))
			for i, v := range o.vanished {
				q[i] = strconv.Quote(v)
			}
			notes = append(notes, fmt.Sprintf("%d agent%s left %s, which the new version does not have, for the initial state; if it was renamed, renamed = { [%s] = \"new.path\" } in the root keeps them",
				o.moved, plural(o.moved), strings.Join(o.vanished, ", "), q[0]))
		}
		if len(notes) > 0 {
			fmt.Fprintf(stderr, "reload ok: %s (%s)\n", oneLine(script), oneLine(strings.Join(notes, "; ")))
		} else {
			fmt.Fprintf(stderr, "reload ok: %s\n", oneLine(script))
		}
		if o.json {
			o.line(reloadLine{tick, "ok"})
		}
	} else {
		msg := err.Error()
		for _, l := range errorLines(err) {
			fmt.Fprintf(stderr, "reload failed: %s\n", l)
		}
		if o.json {
			o.line(reloadLine{tick, msg})
		}
	}
	stderr.Write(heldErr.Bytes())
	o.w.Write(held.Bytes())
	o.flush()
	return err
}

// errorLines are the lines of an error as the text output shows them: one
// a problem of a host.ErrorList (else one a line of its text), each
// through oneLine, so that a message the script raised cannot forge one.
func errorLines(err error) []string {
	var list host.ErrorList
	var ls []string
	if errors.As(err, &list) && len(list) > 0 {
		for _, e := range list {
			ls = append(ls, e.Error())
		}
	} else {
		ls = strings.Split(err.Error(), "\n")
	}
	for i, l := range ls {
		ls[i] = oneLine(l)
	}
	return ls
}

// watchError reports a problem of the file watcher; the run goes on.
func (o *runOutput) watchError(err error) {
	o.flush()
	fmt.Fprintf(o.stderr, "luaai run: --watch: %v\n", err)
}

// line writes v as one JSON line.
func (o *runOutput) line(v any) {
	if err := o.enc.Encode(v); err != nil {
		// Only unencodable values fail, and jsonValue makes every value
		// encodable; say so rather than drop the line silently.
		fmt.Fprintf(o.w, "{\"error\":%q}\n", err.Error())
	}
}

// optString is a JSON string, or null when empty.
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

type transitionLine struct {
	Tick   int     `json:"tick"`
	Agent  int     `json:"agent"`
	From   *string `json:"from"`
	To     string  `json:"to"`
	Kind   string  `json:"kind"`
	Event  string  `json:"event,omitempty"`  // --trace: the event that fired it
	Sender int     `json:"sender,omitempty"` // --trace: the agent that sent it
}

// transition prints "tick 3 agent 1 patrol -> combat", with the kind
// appended when it is not "to": " (push)".
func (o *runOutput) transition(t host.Transition) {
	if t.Kind == host.TransitionSpawn || t.Kind == host.TransitionRestore {
		return // the CLI prints changes; where agents start shows in --trace
	}
	if !o.trace || !o.traced(t.Agent) {
		t.Event, t.Sender = "", 0
	}
	if o.json {
		o.line(transitionLine{t.Tick, t.Agent, optString(t.From), t.To, string(t.Kind), t.Event, t.Sender})
		return
	}
	fmt.Fprintf(o.w, "tick %d agent %d %s -> %s", t.Tick, t.Agent, oneLine(orNone(t.From)), oneLine(orNone(t.To)))
	if t.Kind != "to" {
		fmt.Fprintf(o.w, " (%s)", t.Kind)
	}
	if t.Event != "" {
		fmt.Fprintf(o.w, " on %s%s", oneLine(t.Event), fromAgent(t.Sender))
	}
	o.w.WriteByte('\n')
}

type errorLine struct {
	Tick     int    `json:"tick"`
	Agent    int    `json:"agent"`
	Error    string `json:"error"`
	State    string `json:"state"`
	Callback string `json:"callback"`
}

// errWhere is where an error happened: its script, line and callback, and
// whether it suspended the agent (counted apart).
type errWhere struct {
	script   string
	line     int
	callback host.Callback
	suspends bool
}

type tally struct {
	count  int
	agents []int // in the order they first failed there
	seen   map[int]bool
}

// scriptError prints "error: file:line: msg (agent N, state S, callback)" on
// stderr, and in JSON mode an error line on stdout too.
func (o *runOutput) scriptError(e *host.ScriptError) {
	o.failed = true
	t := o.tallyOf(e)
	if e.Suspends {
		// Grouped by cause at the end of the tick (endTick).
		o.suspended = append(o.suspended, e)
		return
	}
	if !isPowerOf10(t.count) {
		return
	}
	if o.json {
		o.line(errorLine{e.Tick, e.Agent, e.Message(), e.State, string(e.Callback)})
	}
	o.flush() // keep stdout and stderr in order on a terminal
	o.prog.clear()
	fmt.Fprintf(o.stderr, "tick %d error: %s\n", e.Tick, oneLine(errorText(e, t)))
}

// tallyOf counts e where it happened, and its agent.
func (o *runOutput) tallyOf(e *host.ScriptError) *tally {
	if o.errTally == nil {
		o.errTally, o.errAgents = map[errWhere]*tally{}, map[int]bool{}
	}
	k := errWhere{e.Script, e.Line, e.Callback, e.Suspends}
	t := o.errTally[k]
	if t == nil {
		t = &tally{seen: map[int]bool{}}
		o.errTally[k] = t
	}
	t.count++
	if !t.seen[e.Agent] {
		t.seen[e.Agent] = true
		t.agents = append(t.agents, e.Agent)
	}
	o.errTotal++
	o.errAgents[e.Agent] = true
	return t
}

// errorText is an error as the text output shows it: "file:line: msg
// (agent 1, state s, update)", and once it failed more than once "…;
// failed 10 times, agents 1, 2)".
func errorText(e *host.ScriptError, t *tally) string {
	state := e.State
	if state == "" {
		state = "<root>"
	}
	msg := messageWithRemedy(e)
	if t.count > 1 {
		return fmt.Sprintf("%s (agent %d, state %s, %s; failed %d times, %s)", msg, e.Agent, state, e.Callback, t.count, agentList(t.agents))
	}
	return fmt.Sprintf("%s (agent %d, state %s, %s)", msg, e.Agent, state, e.Callback)
}

// agentList names agents: "agent 3", "agents 1, 2, 5", "agents 1, 2, 3, 4,
// 5 and 12 more".
func agentList(ids []int) string {
	if len(ids) == 1 {
		return fmt.Sprintf("agent %d", ids[0])
	}
	const shown = 5
	var b strings.Builder
	b.WriteString("agents ")
	for i, id := range ids[:min(len(ids), shown)] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(id))
	}
	if len(ids) > shown {
		fmt.Fprintf(&b, " and %d more", len(ids)-shown)
	}
	return b.String()
}

// endTick prints the suspensions of the tick, one line per cause with the
// agents it suspended.
func (o *runOutput) endTick() {
	if len(o.suspended) == 0 {
		return
	}
	byCause := map[errWhere][]*host.ScriptError{}
	var order []errWhere
	for _, e := range o.suspended {
		k := errWhere{e.Script, e.Line, e.Callback, true}
		if byCause[k] == nil {
			order = append(order, k)
		}
		byCause[k] = append(byCause[k], e)
	}
	o.suspended = o.suspended[:0]
	for _, k := range order {
		es := byCause[k]
		if o.json {
			for _, e := range es {
				o.line(errorLine{e.Tick, e.Agent, e.Message(), e.State, string(e.Callback)})
			}
		}
		ids := make([]int, len(es))
		for i, e := range es {
			ids[i] = e.Agent
		}
		e := es[0]
		o.flush()
		o.prog.clear()
		state := e.State
		if state == "" {
			state = "<root>"
		}
		msg := messageWithRemedy(e)
		fmt.Fprintf(o.stderr, "tick %d error: %s (state %s, %s; %s suspended)\n", e.Tick, oneLine(msg), state, e.Callback, agentList(ids))
	}
}

// summary prints "60 errors, 1 distinct, 2 agents" on stderr after a run
// that had errors.
func (o *runOutput) summary() {
	if o.errTotal == 0 {
		return
	}
	o.flush()
	fmt.Fprintf(o.stderr, "%d error%s, %d distinct, %d agent%s\n", o.errTotal, plural(o.errTotal), len(o.errTally), len(o.errAgents), plural(len(o.errAgents)))
}

func isPowerOf10(n int) bool {
	for n >= 10 && n%10 == 0 {
		n /= 10
	}
	return n == 1
}

type droppedLine struct {
	Tick    int    `json:"tick"`
	Agent   int    `json:"agent"`
	Dropped string `json:"dropped"`
	State   string `json:"state"`
	Sender  int    `json:"sender,omitempty"` // the agent that sent it
}

// fromAgent is " from agent 2" for an event agent 2 sent, "" for the
// game's.
func fromAgent(sender int) string {
	if sender == 0 {
		return ""
	}
	return " from agent " + strconv.Itoa(sender)
}

// dropped prints an event no transition took (--trace): "tick 3 agent 1
// event noise dropped: no transition took it (state patrol)".
func (o *runOutput) dropped(d host.DroppedEvent) {
	if !o.traced(d.Agent) || isTreeFinish(d.Event) {
		// A tree's finish is told once, by its own line: the event it
		// sends is there for the transitions that want it.
		return
	}
	if o.json {
		o.line(droppedLine{d.Tick, d.Agent, d.Event, d.State, d.Sender})
		return
	}
	fmt.Fprintf(o.w, "tick %d agent %d event %s%s dropped: no transition took it (state %s)\n", d.Tick, d.Agent, oneLine(d.Event), fromAgent(d.Sender), oneLine(orNone(d.State)))
}

type logLine struct {
	Tick  int    `json:"tick"`
	Agent int    `json:"agent"`
	Log   string `json:"log"`
	State string `json:"state"`
}

// log prints an ai.log line: "tick 2 agent 1 log: msg".
func (o *runOutput) log(l host.Log) {
	if strings.HasPrefix(l.Msg, treeFinished) && (!o.trace || !o.traced(l.Agent)) {
		// The engine tells a tree's finish where decisions are traced:
		// with --inspect that is the page, not the terminal.
		return
	}
	if o.json {
		o.line(logLine{l.Tick, l.Agent, l.Msg, l.State})
		return
	}
	fmt.Fprintf(o.w, "tick %d agent %d log: %s\n", l.Tick, l.Agent, oneLine(l.Msg))
}

// loadErrorLine is a script that does not load, in --json mode.
type loadErrorLine struct {
	Tick  int    `json:"tick"`
	Error string `json:"error"`
}

type decisionLine struct {
	Tick   int                   `json:"tick"`
	Agent  int                   `json:"agent"`
	Decide string                `json:"decide"`
	Scores map[string]any        `json:"scores"`
	Parts  map[string][]partJSON `json:"parts,omitempty"`
	Winner *string               `json:"winner"`
	Kept   bool                  `json:"kept,omitempty"`
}

// partJSON is one factor of a native scorer, for the "why" trace.
type partJSON struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
}

// decision prints a utility decision:
// "tick 2 agent 1 decide needs: needs.eat=0.7 needs.idle=0.1 -> needs.eat".
func (o *runOutput) decision(d host.Decision) {
	if !o.traced(d.Agent) {
		return
	}
	if o.json {
		scores := make(map[string]any, len(d.Candidates))
		var parts map[string][]partJSON
		for _, c := range d.Candidates {
			scores[c.State] = plainjson.Number(c.Score)
			if len(c.Parts) > 0 {
				if parts == nil {
					parts = map[string][]partJSON{}
				}
				for _, p := range c.Parts {
					parts[c.State] = append(parts[c.State], partJSON{p.Name, plainjson.Number(p.Value)})
				}
			}
		}
		o.line(decisionLine{d.Tick, d.Agent, d.Machine, scores, parts, optString(d.Winner), d.Kept})
		return
	}
	machine := d.Machine
	if machine == "" {
		machine = "(root)"
	}
	fmt.Fprintf(o.w, "tick %d agent %d decide %s:", d.Tick, d.Agent, oneLine(machine))
	for _, c := range d.Candidates {
		fmt.Fprintf(o.w, " %s=%s", oneLine(c.State), strconv.FormatFloat(c.Score, 'g', 6, 64))
		if len(c.Parts) > 0 {
			o.w.WriteString(" [")
			for i, p := range c.Parts {
				if i > 0 {
					o.w.WriteByte(' ')
				}
				fmt.Fprintf(o.w, "%s=%s", oneLine(p.Name), strconv.FormatFloat(p.Value, 'g', 6, 64))
			}
			o.w.WriteByte(']')
		}
	}
	fmt.Fprintf(o.w, " -> %s", oneLine(orNone(d.Winner)))
	if d.Kept {
		o.w.WriteString(" (kept)")
	}
	o.w.WriteByte('\n')
}

type traceLine struct {
	Tick      int      `json:"tick"`
	Agent     int      `json:"agent"`
	State     *string  `json:"state"`
	Paused    []string `json:"paused,omitempty"`
	Suspended string   `json:"suspended,omitempty"` // why: fault, overruns, memory, host
	Ctx       any      `json:"ctx"`
}

// traceAgent prints an agent's state and context after a tick:
// "tick 3 agent 1 state patrol.walk ctx {"n":3}".
func (o *runOutput) traceAgent(tick int, a *host.Agent) {
	if !o.traced(a.ID()) {
		return
	}
	state, _ := a.State()
	var ctx any = plainjson.Safe(a.Context())
	paused := a.PausedStates()
	var suspended string
	if a.Suspended() {
		suspended = a.SuspendReason().String()
	}
	if o.changes {
		var changed bool
		if ctx, changed = o.changed(a.ID(), state, paused, suspended, ctx); !changed {
			return
		}
	}
	if o.json {
		o.line(traceLine{tick, a.ID(), optString(state), paused, suspended, ctx})
		return
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ctx); err != nil {
		b.WriteString(strconv.Quote(err.Error()))
	}
	if len(paused) > 0 {
		// The whole stack: what a pop returns to.
		state = orNone(state) + " paused " + strings.Join(paused, ",")
	}
	if suspended != "" {
		// A suspended agent does not tick: its line says so, and why.
		state = orNone(state) + " suspended (" + suspended + ")"
	}
	fmt.Fprintf(o.w, "tick %d agent %d state %s ctx %s\n", tick, a.ID(), oneLine(orNone(state)), strings.TrimSuffix(b.String(), "\n"))
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// traced reports whether --trace prints agent id's lines.
func (o *runOutput) traced(id int) bool { return o.traceOnly == nil || o.traceOnly[id] }

// messageWithRemedy is e's message and, for the error that suspended its
// agent, what lets the agent tick again in luaai run's words.
func messageWithRemedy(e *host.ScriptError) string {
	switch e.Suspension {
	case host.SuspendedByFault, host.SuspendedByOverruns:
		return e.Message() + " (resume A at the console or in the inspector, or a fix saved under --watch, lets it tick again)"
	case host.SuspendedByMemory, host.SuspendedByHost:
		return e.Message() + " (resume A at the console or in the inspector lets it tick again)"
	}
	return e.Message()
}
