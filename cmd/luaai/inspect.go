package main

// luaai run --inspect: the web inspector served next to the run loop.

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/luaai/luaai/inspector"
)

// startInspector serves the inspector of the loop's host on addr and
// routes the page's commands to the loop. stop ends it; call it on the
// loop's goroutine once the loop is done.
func (l *runLoop) startInspector(ctx context.Context, addr string, opts inspector.Options) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	cmds := make(chan inspector.Command, 64)
	opts.RateControl = true
	opts.OnCommand = func(c inspector.Command) {
		select {
		case cmds <- c:
		case <-ctx.Done():
		}
	}
	opts.AllowUnauthenticated = opts.Token == "" // our own listener, no proxy before it
	l.insp = inspector.New(l.h, opts)
	l.cmds = cmds
	srv := &http.Server{Handler: l.insp, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	u := url.URL{Scheme: "http", Host: ln.Addr().String(), Path: "/"}
	if opts.Token != "" {
		u.RawQuery = url.Values{"token": {opts.Token}}.Encode()
	}
	l.url = u.String()
	fmt.Fprintf(l.out.stderr, "luaai run: inspector at %s\n", l.url)
	return func() {
		srv.Close()
		l.insp.Close()
	}, nil
}
