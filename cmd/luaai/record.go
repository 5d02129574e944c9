package main

// luaai run --record FILE: the seed, the script's content hash, every input
// and every agent's traced row, as JSON lines (gzip when FILE ends .gz).
// A row is written only when the agent changed, and holds only the
// top-level context keys that changed: the replay carries the rest forward.

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/luaai/luaai/internal/plainjson"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/safefile"
)

// recordingFormat is the version of the recording format this luaai
// writes and reads.
const recordingFormat = 1

// recHeader is a recording's first line: what the run started from.
type recHeader struct {
	Format   int             `json:"luaai_recording"`
	Script   string          `json:"script"`
	SHA256   string          `json:"sha256"`          // of the script and the modules it required, in order
	Files    []recFile       `json:"files,omitempty"` // each of them, for replay to name what changed
	Seed     uint64          `json:"seed"`
	Agents   int             `json:"agents"`
	Workers  int             `json:"workers"`
	Dt       float64         `json:"dt"`
	Set      []recSetting    `json:"set,omitempty"`
	Snapshot json.RawMessage `json:"snapshot,omitempty"` // --load's snapshot
	// Scripts is every script of a run of several (luaai run a.lua b.lua
	// --agents 1,2), in order, with its agents and its files' digests;
	// Script, SHA256 and Files are then the first's. Absent for one.
	Scripts []recScript `json:"scripts,omitempty"`
}

// recScript is one script of a recorded run of several.
type recScript struct {
	Script string    `json:"script"`
	Agents int       `json:"agents"`
	SHA256 string    `json:"sha256"`
	Files  []recFile `json:"files,omitempty"`
}

// recFile is a file a recorded run loaded: its path from the script's
// folder and its digest.
type recFile struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// filesOf digests the files b loaded, named from script's folder.
func filesOf(script string, files []string) []recFile {
	dir := filepath.Dir(script)
	out := make([]recFile, 0, len(files))
	for _, f := range files {
		name, err := filepath.Rel(dir, f)
		if err != nil {
			name = f
		}
		sum, _ := scriptHash([]string{f})
		out = append(out, recFile{Name: filepath.ToSlash(name), SHA256: sum})
	}
	return out
}

// changedFiles names the recorded files whose digest differs now, those
// gone, and those loaded now that the recording did not.
func changedFiles(recorded, now []recFile) []string {
	was := map[string]string{}
	for _, f := range recorded {
		was[f.Name] = f.SHA256
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range now {
		seen[f.Name] = true
		switch sum, ok := was[f.Name]; {
		case !ok:
			out = append(out, f.Name+" (not loaded by the recorded run)")
		case sum != f.SHA256:
			out = append(out, f.Name)
		}
	}
	for _, f := range recorded {
		if !seen[f.Name] {
			out = append(out, f.Name+" (no longer loaded)")
		}
	}
	return out
}

type recSetting struct {
	Path string `json:"path"`
	Raw  string `json:"raw"`
}

// recLine is any later line: an input applied before a tick, an agent's
// row after it, a reload, or the end.
type recLine struct {
	Tick    int             `json:"tick,omitempty"`
	Input   *recInput       `json:"input,omitempty"`
	Agent   int             `json:"agent,omitempty"`
	State   *string         `json:"state,omitempty"`
	Paused  *[]string       `json:"paused,omitempty"`
	Ctx     json.RawMessage `json:"ctx,omitempty"`  // the changed top-level keys
	Gone    []string        `json:"gone,omitempty"` // keys no longer there
	Removed bool            `json:"removed,omitempty"`
	Reload  string          `json:"reload,omitempty"` // "ok" or the error
	End     *int            `json:"end,omitempty"`    // the last tick: the recording is complete
}

// recInput is an input line as --input reads it, plus the console's
// set A key=value (assign: raw text read against the field's value).
type recInput struct {
	Agent   any               `json:"agent"` // an id or "*"
	Send    string            `json:"send,omitempty"`
	Payload any               `json:"payload,omitempty"`
	Set     map[string]any    `json:"set,omitempty"`
	Assign  map[string]string `json:"assign,omitempty"`
	Resume  bool              `json:"resume,omitempty"`
	Reset   bool              `json:"reset,omitempty"`
	Respawn bool              `json:"respawn,omitempty"`
}

func (r *recInput) line(where string) inputLine {
	l := inputLine{where: where, send: r.Send, payload: r.Payload, set: r.Set, resume: r.Resume, reset: r.Reset, respawn: r.Respawn}
	if r.Agent == "*" {
		l.all = true
	} else if id, ok := r.Agent.(float64); ok {
		l.agent = int(id)
	}
	keys := make([]string, 0, len(r.Assign))
	for k := range r.Assign {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		l.assign = append(l.assign, assignment{path: strings.Split(k, "."), raw: r.Assign[k]})
	}
	return l
}

func inputOf(l inputLine) *recInput {
	r := &recInput{Send: l.send, Payload: l.payload, Set: l.set, Agent: l.agent, Resume: l.resume, Reset: l.reset, Respawn: l.respawn}
	if l.all {
		r.Agent = "*"
	}
	if len(l.assign) > 0 {
		r.Assign = map[string]string{}
		for _, a := range l.assign {
			r.Assign[strings.Join(a.path, ".")] = a.raw
		}
	}
	return r
}

// agentRow is an agent as a recording sees it: its state path, what is
// paused under it, and each top-level context key's JSON.
type agentRow struct {
	state  string
	paused []string
	ctx    map[string]string
}

func rowOf(a *host.Agent) agentRow {
	r := agentRow{state: a.Path(), paused: a.PausedStates(), ctx: map[string]string{}}
	for k, v := range a.Context() {
		data, err := json.Marshal(plainjson.Safe(v))
		if err != nil {
			data, _ = json.Marshal(err.Error())
		}
		r.ctx[k] = string(data)
	}
	return r
}

// recorder writes a recording as the run goes.
type recorder struct {
	file string
	f    *os.File
	gz   *gzip.Writer
	w    *bufio.Writer
	last map[int]agentRow
	err  error
}

// scriptHash hashes the behaviour's files, the script first.
func scriptHash(files []string) (string, error) {
	h := sha256.New()
	for _, f := range files {
		data, err := safefile.ReadRegular(f, 4<<20)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%d:", len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// newRecorder creates FILE and writes the header and the agents' rows at
// the start (tick 0 for a spawn; the snapshot's ticks for --load). bs are
// the run's behaviours, one for each of cfg.scripts.
func newRecorder(cfg *runConfig, bs []*host.Behaviour, h *host.Host, snapshot []byte) (*recorder, error) {
	b := bs[0]
	sum, err := scriptHash(b.Files())
	if err != nil {
		return nil, err
	}
	var scripts []recScript
	if len(bs) > 1 {
		for i, sb := range bs {
			s, err := scriptHash(sb.Files())
			if err != nil {
				return nil, err
			}
			n := cfg.agents
			if cfg.agentsEach != nil {
				n = cfg.agentsEach[i]
			}
			scripts = append(scripts, recScript{Script: cfg.scripts[i], Agents: n, SHA256: s, Files: filesOf(cfg.scripts[i], sb.Files())})
		}
	}
	f, err := os.Create(cfg.record)
	if err != nil {
		return nil, err
	}
	r := &recorder{file: cfg.record, f: f, last: map[int]agentRow{}}
	var w io.Writer = f
	if strings.HasSuffix(cfg.record, ".gz") {
		r.gz = gzip.NewWriter(f)
		w = r.gz
	}
	r.w = bufio.NewWriterSize(w, 64<<10)
	hd := recHeader{Format: recordingFormat, Script: cfg.script, SHA256: sum, Files: filesOf(cfg.script, b.Files()), Seed: cfg.seed, Agents: cfg.agents, Workers: cfg.workers, Dt: cfg.dt, Snapshot: snapshot, Scripts: scripts}
	if len(scripts) > 0 {
		hd.Agents = 0
		for _, s := range scripts {
			hd.Agents += s.Agents
		}
	}
	for _, s := range cfg.set {
		hd.Set = append(hd.Set, recSetting{Path: strings.Join(s.path, "."), Raw: s.raw})
	}
	r.write(hd)
	r.rows(0, h)
	return r, r.err
}

func (r *recorder) write(v any) {
	if r.err != nil {
		return
	}
	data, err := json.Marshal(v)
	if err == nil {
		data = append(data, '\n')
		_, err = r.w.Write(data)
	}
	r.err = err
}

// input records a line applied before tick.
func (r *recorder) input(tick int, l inputLine) {
	if r == nil {
		return
	}
	r.write(recLine{Tick: tick, Input: inputOf(l)})
}

// reload records a reload before tick.
func (r *recorder) reload(tick int, err error) {
	if r == nil {
		return
	}
	msg := "ok"
	if err != nil {
		msg = err.Error()
	}
	r.write(recLine{Tick: tick, Reload: msg})
}

// tick records the rows of the agents that changed in tick.
func (r *recorder) tick(tick int, h *host.Host) error {
	if r == nil {
		return nil
	}
	r.rows(tick, h)
	if r.err == nil {
		r.err = r.w.Flush() // a run killed later keeps what it recorded
	}
	return r.err
}

func (r *recorder) rows(tick int, h *host.Host) {
	seen := map[int]bool{}
	for _, a := range h.Agents() {
		seen[a.ID()] = true
		now := rowOf(a)
		line, changed := rowDelta(r.last[a.ID()], now, r.last[a.ID()].ctx == nil)
		if changed {
			line.Tick, line.Agent = tick, a.ID()
			r.write(line)
		}
		r.last[a.ID()] = now
	}
	ids := make([]int, 0)
	for id := range r.last {
		if !seen[id] {
			ids = append(ids, id)
		}
	}
	sort.Ints(ids)
	for _, id := range ids {
		r.write(recLine{Tick: tick, Agent: id, Removed: true})
		delete(r.last, id)
	}
}

// rowDelta is the line that turns was into now; changed is false when
// they are the same. first writes every key.
func rowDelta(was, now agentRow, first bool) (recLine, bool) {
	var l recLine
	changed := first
	if first || was.state != now.state {
		s := now.state
		l.State, changed = &s, true
	}
	if !slices.Equal(was.paused, now.paused) {
		p := append([]string{}, now.paused...) // emptied: written as []
		l.Paused, changed = &p, true
	}
	var b strings.Builder
	keys := make([]string, 0, len(now.ctx))
	for k := range now.ctx {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v, ok := was.ctx[k]; first || !ok || v != now.ctx[k] {
			if b.Len() > 0 {
				b.WriteByte(',')
			}
			kj, _ := json.Marshal(k)
			b.Write(kj)
			b.WriteByte(':')
			b.WriteString(now.ctx[k])
		}
	}
	if b.Len() > 0 {
		l.Ctx = json.RawMessage("{" + b.String() + "}")
		changed = true
	}
	for k := range was.ctx {
		if _, ok := now.ctx[k]; !ok {
			l.Gone = append(l.Gone, k)
			changed = true
		}
	}
	sort.Strings(l.Gone)
	return l, changed
}

// close writes the end line with the last tick and closes the file.
func (r *recorder) close(done int) error {
	if r == nil {
		return nil
	}
	r.write(recLine{End: &done})
	err := r.err
	if e := r.w.Flush(); err == nil {
		err = e
	}
	if r.gz != nil {
		if e := r.gz.Close(); err == nil {
			err = e
		}
	}
	if e := r.f.Close(); err == nil {
		err = e
	}
	return err
}
