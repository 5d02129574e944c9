package host

import (
	"context"
	"log/slog"
)

// LogErrors returns an Options.OnError that writes each failed callback to
// l at level Warn (Error for one that suspended its agent), with the
// script error's fields as attributes: a server's structured log instead
// of a callback of its own.
func LogErrors(l *slog.Logger) func(*ScriptError) {
	return func(e *ScriptError) {
		level := slog.LevelWarn
		if e.Suspends {
			level = slog.LevelError
		}
		l.LogAttrs(context.Background(), level, "luaai: "+e.Msg,
			slog.String("script", e.Script), slog.Int("line", e.Line),
			slog.Int("agent", e.Agent), slog.Int("tick", e.Tick),
			slog.String("state", e.State), slog.String("callback", string(e.Callback)),
			slog.Int("count", e.Count), slog.Bool("suspends", e.Suspends))
	}
}

// LogLines returns an Options.OnLog that writes each ai.log line to l at
// level Info.
func LogLines(l *slog.Logger) func(Log) {
	return func(g Log) {
		l.LogAttrs(context.Background(), slog.LevelInfo, g.Msg,
			slog.Int("agent", g.Agent), slog.Int("tick", g.Tick), slog.String("state", g.State))
	}
}
