package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/luaai/luaai/luatest"
)

// luaai test -o: busted's output handlers by name. The text report is
// utfTerminal's and plainTerminal's; TAP, json and junit write a report
// for CI on stdout, and the text report goes to stderr.

// testOutputs are the names -o takes, lowercased, with what each writes
// (nil: the text report on stdout).
var testOutputs = map[string]func(io.Writer, *testReport) error{
	"utfterminal":   nil,
	"plainterminal": nil,
	"tap":           writeTAP,
	"json":          writeTestJSON,
	"junit":         writeJUnit,
}

// testReport collects the outcomes of a luaai test run.
type testReport struct {
	began time.Time
	cases []luatest.Case
}

func (r *testReport) add(c luatest.Case) { r.cases = append(r.cases, c) }

// writeTAP writes the Test Anything Protocol, as busted's TAP handler:
// "ok N - name", "not ok N - name" with "# file @ line" and the message
// as comments, "ok N - # SKIP name", and the plan ("1..N") last.
func writeTAP(w io.Writer, r *testReport) error {
	var b strings.Builder
	for i, c := range r.cases {
		n := i + 1
		switch c.Status {
		case luatest.Passed:
			fmt.Fprintf(&b, "ok %d - %s\n", n, oneLine(c.Name))
		case luatest.Pending:
			fmt.Fprintf(&b, "ok %d - # SKIP %s\n", n, oneLine(c.Name))
		default:
			fmt.Fprintf(&b, "not ok %d - %s\n", n, oneLine(c.Name))
			fmt.Fprintf(&b, "# %s @ %d\n", c.Pos.File, c.Pos.Line)
			fmt.Fprintf(&b, "# Failure message: %s\n", strings.ReplaceAll(c.Message, "\n", "\n# "))
		}
	}
	fmt.Fprintf(&b, "1..%d\n", len(r.cases))
	_, err := io.WriteString(w, b.String())
	return err
}

// jsonCase is one test in the json report, shaped as busted's json
// handler shapes it (name, message, trace, element), with the duration.
type jsonCase struct {
	Name     string    `json:"name"`
	Message  string    `json:"message,omitempty"`
	Trace    jsonTrace `json:"trace"`
	Element  jsonElem  `json:"element"`
	Duration float64   `json:"duration"`
}

type jsonTrace struct {
	ShortSrc    string `json:"short_src"`
	CurrentLine int    `json:"currentline"`
}

type jsonElem struct {
	Name       string    `json:"name"`
	Descriptor string    `json:"descriptor"`
	Trace      jsonTrace `json:"trace"`
}

// writeTestJSON writes busted's json report: successes, failures,
// errors and pendings, and the run's duration in seconds.
func writeTestJSON(w io.Writer, r *testReport) error {
	out := struct {
		Successes []jsonCase `json:"successes"`
		Failures  []jsonCase `json:"failures"`
		Errors    []jsonCase `json:"errors"`
		Pendings  []jsonCase `json:"pendings"`
		Duration  float64    `json:"duration"`
	}{Successes: []jsonCase{}, Failures: []jsonCase{}, Errors: []jsonCase{}, Pendings: []jsonCase{}, Duration: time.Since(r.began).Seconds()}
	for _, c := range r.cases {
		tr := jsonTrace{ShortSrc: c.Pos.File, CurrentLine: c.Pos.Line}
		desc := "it"
		if c.Name == c.File {
			desc = "file"
		}
		jc := jsonCase{Name: c.Name, Message: c.Message, Trace: tr, Element: jsonElem{Name: c.Name, Descriptor: desc, Trace: tr}, Duration: c.Duration.Seconds()}
		switch c.Status {
		case luatest.Passed:
			out.Successes = append(out.Successes, jc)
		case luatest.Failed:
			out.Failures = append(out.Failures, jc)
		case luatest.Errored:
			out.Errors = append(out.Errors, jc)
		case luatest.Pending:
			out.Pendings = append(out.Pendings, jc)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// The JUnit XML report: a testsuite per test file in a testsuites root,
// a testcase per test with a failure, error or skipped element, as JUnit
// consumers (CI test report pages) read them.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Time      string      `xml:"time,attr"`
	Timestamp string      `xml:"timestamp,attr"`
	Hostname  string      `xml:"hostname,attr"`
	Cases     []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr,omitempty"`
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.6f", d.Seconds()) }

// writeJUnit writes the JUnit XML report.
func writeJUnit(w io.Writer, r *testReport) error {
	root := junitSuites{Name: "luaai test", Time: seconds(time.Since(r.began))}
	host, _ := os.Hostname()
	stamp := r.began.UTC().Format("2006-01-02T15:04:05")
	index := map[string]int{}
	for _, c := range r.cases {
		i, ok := index[c.File]
		if !ok {
			i = len(root.Suites)
			index[c.File] = i
			root.Suites = append(root.Suites, junitSuite{Name: c.File, Timestamp: stamp, Hostname: host})
		}
		s := &root.Suites[i]
		jc := junitCase{Name: c.Name, Classname: classname(c.File), File: c.Pos.File, Line: c.Pos.Line, Time: seconds(c.Duration)}
		first, _, _ := strings.Cut(c.Message, "\n")
		switch c.Status {
		case luatest.Failed:
			jc.Failure = &junitProblem{Message: first, Type: "failure", Text: c.Output}
			s.Failures++
		case luatest.Errored:
			jc.Error = &junitProblem{Message: first, Type: "error", Text: c.Output}
			s.Errors++
		case luatest.Pending:
			jc.Skipped = &junitSkipped{Message: "pending"}
			s.Skipped++
		}
		s.Tests++
		s.Cases = append(s.Cases, jc)
	}
	for i := range root.Suites {
		s := &root.Suites[i]
		var d time.Duration
		for _, c := range r.cases {
			if c.File == s.Name {
				d += c.Duration
			}
		}
		s.Time = seconds(d)
		root.Tests += s.Tests
		root.Failures += s.Failures
		root.Errors += s.Errors
		root.Skipped += s.Skipped
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(root); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// classname is a test file as a JUnit class: its path without .lua,
// dotted (spec/guard_spec.lua: spec.guard_spec), as busted names it.
func classname(file string) string {
	s := strings.TrimSuffix(filepath.ToSlash(file), ".lua")
	return strings.ReplaceAll(strings.TrimPrefix(s, "./"), "/", ".")
}
