package inspector

// The web inspector's HTTP side: the page, its Server-Sent Events stream,
// agents' histories and the commands. It reads only what the game
// goroutine published (bytes and plain rows) and queues commands for it.

import (
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

//go:embed page
var pageFiles embed.FS

// httpError answers an error as {"error": "..."}.
func httpError(w http.ResponseWriter, code int, format string, args ...any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"error": "inspector: " + fmt.Sprintf(format, args...)})
}

func (s *shared) serve(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	if err := s.allowed(r); err != nil {
		code := http.StatusForbidden
		if s.opts.Token != "" {
			code = http.StatusUnauthorized
		}
		httpError(w, code, "%v", err)
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/")
	if path == "api/command" {
		if r.Method != http.MethodPost {
			hd.Set("Allow", "POST")
			httpError(w, http.StatusMethodNotAllowed, "api/command takes POST")
			return
		}
		s.command(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET")
		httpError(w, http.StatusMethodNotAllowed, "%s takes GET", r.URL.Path)
		return
	}
	switch path {
	case "", "index.html":
		s.file(w, "index.html", "text/html; charset=utf-8")
	case "app.js":
		s.file(w, "app.js", "text/javascript; charset=utf-8")
	case "style.css":
		s.file(w, "style.css", "text/css; charset=utf-8")
	case "api/stream":
		s.stream(w, r)
	case "api/history":
		s.history(w, r)
	case "api/structure":
		s.structure(w, r)
	default:
		httpError(w, http.StatusNotFound, "no page %s", r.URL.Path)
	}
}

// allowed checks who asks: with a token, that it has it; without, that it
// is on this machine (remote address and Host header both loopback, so a
// web page elsewhere cannot reach it through DNS rebinding). A POST must
// also come from the inspector's own page (Origin) and be JSON (which
// browsers cannot send across origins without asking first).
func (s *shared) allowed(r *http.Request) error {
	if s.opts.Token != "" {
		got := r.URL.Query().Get("token")
		if a := r.Header.Get("Authorization"); strings.HasPrefix(a, "Bearer ") {
			got = strings.TrimPrefix(a, "Bearer ")
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte(s.opts.Token)) != 1 {
			return errors.New("wrong or missing token (open the address printed at start, with its ?token=)")
		}
	} else if !s.opts.AllowUnauthenticated {
		return errors.New("the inspector has no token and does not answer without one (set Options.Token, or AllowUnauthenticated for a handler nothing forwards to)")
	} else if !loopback(r.RemoteAddr) || !loopbackHost(r.Host) {
		return errors.New("without a token the inspector answers only this machine (set a token: --inspect-token, Options.Token)")
	}
	if r.Method == http.MethodPost {
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || u.Host != r.Host {
				return fmt.Errorf("a command from another site (Origin %q) is refused", o)
			}
		}
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			return fmt.Errorf("a command must be sent as application/json, not %q", ct)
		}
	}
	return nil
}

func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func loopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (s *shared) file(w http.ResponseWriter, name, ctype string) {
	data, err := pageFiles.ReadFile("page/" + name)
	if err != nil {
		httpError(w, http.StatusNotFound, "%v", err)
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.Write(data)
}

// history answers an agent's frame at a tick, and the one before it (for
// what changed): GET api/history?agent=ID&tick=N.
func (s *shared) history(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	id, err := strconv.Atoi(q.Get("agent"))
	if err != nil {
		httpError(w, http.StatusBadRequest, "agent=%q is not an agent id", q.Get("agent"))
		return
	}
	tick, err := strconv.Atoi(q.Get("tick"))
	if err != nil {
		httpError(w, http.StatusBadRequest, "tick=%q is not a tick number", q.Get("tick"))
		return
	}
	// Everything the answer needs is copied out under mu: the game
	// goroutine rewrites the ring at its next publish. (A frame's data is
	// never written once published, so the slices may be kept.)
	s.mu.Lock()
	ring := s.hist[id]
	if ring == nil || ring.len() == 0 {
		dropped := ring != nil
		s.mu.Unlock()
		if dropped {
			httpError(w, http.StatusNotFound, "agent %d: its history was dropped to keep the inspector's history within its bound in bytes (Options.HistoryBytes, --inspect-history-bytes)", id)
			return
		}
		httpError(w, http.StatusNotFound, "agent %d is not followed (pick it first): no history", id)
		return
	}
	first, last := ring.at(0).tick, ring.last().tick
	i := ring.find(tick)
	if i < 0 {
		s.mu.Unlock()
		httpError(w, http.StatusNotFound, "agent %d: tick %d is before its history (from tick %d)", id, tick, first)
		return
	}
	f := ring.at(i)
	prev := []byte("null")
	if i > 0 {
		prev = ring.at(i - 1).data
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"first":%d,"last":%d,"frame":%s,"prev":%s}`, first, last, f.data, prev)
}

// structure answers a behaviour's structure: GET api/structure?id=N.
func (s *shared) structure(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(r.URL.Query().Get("id"))
	s.mu.Lock()
	data, ok := s.structures[id]
	s.mu.Unlock()
	if err != nil || !ok {
		httpError(w, http.StatusNotFound, "no structure %q", r.URL.Query().Get("id"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(data)
}
