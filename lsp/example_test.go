package lsp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/luaai/luaai/lsp"
)

// rwc joins a reader and a writer as Serve's connection.
type rwc struct {
	io.Reader
	io.Writer
}

func (rwc) Close() error { return nil }

// frame is one LSP message with its header.
func frame(msg string) string {
	return "Content-Length: " + strconv.Itoa(len(msg)) + "\r\n\r\n" + msg
}

// Serve answers an editor's messages on any connection: here a whole
// session written in advance (initialize, shutdown, exit), its answers
// read back.
func ExampleServe() {
	in := frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`) +
		frame(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`) +
		frame(`{"jsonrpc":"2.0","method":"exit"}`)
	var out strings.Builder
	err := lsp.Serve(context.Background(), rwc{strings.NewReader(in), &out}, lsp.Options{})
	fmt.Println("served:", err)

	r := bufio.NewReader(strings.NewReader(out.String()))
	for {
		header, err := r.ReadString('\n')
		if err != nil {
			break
		}
		n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(header, "Content-Length:")))
		r.ReadString('\n') // the blank line
		body := make([]byte, n)
		io.ReadFull(r, body)
		var msg struct {
			ID     int
			Result *struct {
				ServerInfo   struct{ Name string }
				Capabilities struct{ RenameProvider any }
			}
		}
		json.Unmarshal(body, &msg)
		if msg.Result != nil {
			fmt.Println(msg.ID, msg.Result.ServerInfo.Name, msg.Result.Capabilities.RenameProvider)
		} else {
			fmt.Println(msg.ID, "null")
		}
	}
	// Output:
	// served: <nil>
	// 1 luaai map[prepareProvider:true]
	// 2 null
}
