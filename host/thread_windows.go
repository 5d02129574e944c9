package host

import (
	"runtime"
	"syscall"
)

var getCurrentThreadID = syscall.NewLazyDLL("kernel32.dll").NewProc("GetCurrentThreadId")

// threadID names the OS thread the calling goroutine runs on; a worker
// locks its goroutine to its thread while it runs scripts (lockThread),
// so that the name stands for the worker's goroutine.
func threadID() uint64 {
	id, _, _ := getCurrentThreadID.Call()
	return uint64(id)
}

func lockThread()   { runtime.LockOSThread() }
func unlockThread() { runtime.UnlockOSThread() }
