package host_test

import (
	"bytes"
	"fmt"

	"github.com/luaai/luaai/host"
)

// A game that saves often takes binary saves: WriteSnapshotWith writes
// one, SnapshotAsyncWith encodes and writes one off the game loop, and
// Restore reads either format. Saved again as JSON, a binary save's agents
// give the JSON save of the originals.
func ExampleHost_WriteSnapshotWith() {
	h1, _ := host.New(host.Options{})
	defer h1.Close()
	door1, _ := h1.LoadString("door.lua", doorScript)
	a, _ := h1.Spawn(door1, nil)
	_ = a.Set("visits", 3)
	_ = h1.Tick(0.1)

	var bin bytes.Buffer
	if err := h1.WriteSnapshotWith(&bin, host.SaveOptions{Format: host.SnapshotBinary}); err != nil {
		panic(err)
	}
	var later bytes.Buffer
	job, err := h1.SnapshotAsyncWith(&later, host.SaveOptions{Format: host.SnapshotBinary})
	if err != nil {
		panic(err)
	}
	_ = h1.Tick(0.1) // the game goes on while the save is written
	if err := job.Wait(); err != nil {
		panic(err)
	}

	fmt.Println("the async save is the same:", bytes.Equal(later.Bytes(), bin.Bytes()))

	h2, _ := host.New(host.Options{})
	defer h2.Close()
	door2, _ := h2.LoadString("door.lua", doorScript)
	agents, err := h2.RestoreFrom(&bin, host.RestoreOptions{}, door2)
	if err != nil {
		panic(err)
	}
	fmt.Println("restored:", agents[0].ID(), agents[0].Path(), agents[0].Get("visits"))
	// Output:
	// the async save is the same: true
	// restored: 1 closed 3
}
