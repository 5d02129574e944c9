package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestProgressOnlyOnTerminals(t *testing.T) {
	var buf bytes.Buffer
	require.Nil(t, newProgress(&buf, 100), "a pipe or buffer gets no progress line")

	old := isTerminal
	isTerminal = func(io.Writer) bool { return true }
	defer func() { isTerminal = old }()
	require.Nil(t, newProgress(&buf, 0), "no length, no progress")

	p := newProgress(&buf, 200)
	clock := p.start
	p.now = func() time.Time { return clock }
	p.update(10)
	require.Empty(t, buf.String(), "short runs show nothing")
	clock = clock.Add(1500 * time.Millisecond)
	p.update(50)
	require.Equal(t, "\r\033[Ktick 50/200 (25%) 1.5s", buf.String())
	clock = clock.Add(100 * time.Millisecond)
	p.update(60)
	require.Equal(t, 1, strings.Count(buf.String(), "tick"), "redrawn at most 5 times a second")
	p.clear()
	require.True(t, strings.HasSuffix(buf.String(), "\r\033[K"))
}

func TestRunPipedHasNoProgress(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"run", "../../scripts/guard.lua", "--ticks", "2000"}, &out, &errOut)
	require.Equal(t, exitOK, code)
	require.NotContains(t, errOut.String(), "\r")
}
