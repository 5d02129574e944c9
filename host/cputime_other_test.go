//go:build !linux

package host_test

import (
	"testing"
	"time"
)

func threadCPU(t *testing.T, fn func()) time.Duration {
	t.Helper()
	t.Skip("a thread's CPU time is read on Linux")
	return 0
}

func processCPU(t testing.TB) time.Duration {
	t.Helper()
	t.Skip("process CPU time is read on Linux")
	return 0
}
