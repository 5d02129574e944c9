package lsp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// maxMessage is the largest message body read; a larger one is skipped
// (read and dropped) and reported.
const maxMessage = 64 << 20

// stream frames JSON-RPC messages with Content-Length headers, as the LSP
// base protocol does (jsonrpc2.ObjectStream). Unlike a plain codec it
// survives garbage: bytes that are not a header are skipped up to the next
// header, a body that is not a JSON-RPC message is answered with a parse
// error, and each is reported on the log. Only the end of the input (or
// a read error) ends it.
type stream struct {
	r   *bufio.Reader
	w   io.Writer
	c   io.Closer
	mu  sync.Mutex // one message written at a time
	log func(format string, args ...any)
}

func newStream(rwc io.ReadWriteCloser, log func(string, ...any)) *stream {
	return &stream{r: bufio.NewReaderSize(rwc, 64<<10), w: rwc, c: rwc, log: log}
}

// WriteObject writes one message.
func (s *stream) WriteObject(obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := fmt.Fprintf(s.w, "Content-Length: %d\r\n\r\n", len(data)); err != nil {
		return err
	}
	_, err = s.w.Write(data)
	return err
}

// ReadObject reads the next message that decodes into v, skipping and
// reporting what does not.
func (s *stream) ReadObject(v any) error {
	for {
		body, err := s.frame()
		if err != nil {
			return err
		}
		if body == nil {
			continue
		}
		if err := json.Unmarshal(body, v); err != nil {
			s.log("luaai lsp: a message that is not JSON-RPC was skipped: %v", err)
			s.parseError(err)
			continue
		}
		return nil
	}
}

// Close closes the connection's input and output.
func (s *stream) Close() error { return s.c.Close() }

// frame reads one header block and its body. A line that is not a header
// is skipped and reported; nil body: the frame was skipped.
func (s *stream) frame() ([]byte, error) {
	length := -1
	garbage := 0
	for {
		line, long, err := s.line()
		garbage += long
		if err != nil {
			if garbage > 0 || line != "" {
				s.log("luaai lsp: %d bytes of input that are not a message were skipped at its end", garbage+len(line))
			}
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if length >= 0 {
				break
			}
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || strings.ContainsAny(name, " \t{}\"") {
			garbage += len(line) + 1
			length = -1
			continue
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				s.log("luaai lsp: a bad Content-Length %q was skipped", strings.TrimSpace(value))
				length = -1
				continue
			}
			length = n
		}
	}
	if garbage > 0 {
		s.log("luaai lsp: %d bytes of input that are not a message were skipped", garbage)
	}
	if length > maxMessage {
		s.log("luaai lsp: a message of %d bytes (over the %d-byte limit) was skipped", length, maxMessage)
		_, err := io.CopyN(io.Discard, s.r, int64(length))
		return nil, err
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.r, body); err != nil {
		return nil, err
	}
	return body, nil
}

// line reads one line. A line longer than the reader's buffer is no
// header: it is dropped as it is read (never held whole), and its length
// returned as long.
func (s *stream) line() (line string, long int, err error) {
	for {
		b, err := s.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long += len(b)
			continue
		}
		if long > 0 {
			return "", long + len(b), err
		}
		return string(b), 0, err
	}
}

// parseError answers a message that could not be read, as JSON-RPC says
// (id null: its id is unknown).
func (s *stream) parseError(err error) {
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	msg := struct {
		JSONRPC string   `json:"jsonrpc"`
		ID      *int     `json:"id"`
		Error   rpcError `json:"error"`
	}{"2.0", nil, rpcError{-32700, "luaai lsp: not a JSON-RPC message: " + err.Error()}}
	if werr := s.WriteObject(msg); werr != nil {
		s.log("luaai lsp: %v", werr)
	}
}
