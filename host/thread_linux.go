package host

import (
	"runtime"
	"syscall"
)

// threadID names the OS thread the calling goroutine runs on; a worker
// locks its goroutine to its thread while it runs scripts (lockThread),
// so that the name stands for the worker's goroutine.
func threadID() uint64 { return uint64(syscall.Gettid()) }

func lockThread()   { runtime.LockOSThread() }
func unlockThread() { runtime.UnlockOSThread() }
