module github.com/luaai/luaai

go 1.25

require (
	github.com/chromedp/chromedp v0.23.0
	github.com/fsnotify/fsnotify v1.10.1
	github.com/joshdk/go-junit v1.0.0
	github.com/sourcegraph/jsonrpc2 v0.2.0
	github.com/tliron/glsp v0.2.2
	github.com/yuin/gopher-lua v1.1.2
	golang.org/x/sys v0.34.0
	golang.org/x/term v0.33.0
	layeh.com/gopher-luar v1.0.11
)

require (
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
)

require (
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
