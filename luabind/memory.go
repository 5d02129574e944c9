package luabind

import (
	"runtime/metrics"
	"time"
)

// memPeriod is how often the watchdog samples the heap while a call runs
// under a memory limit: at the few hundred MB/s a script can allocate, a
// few MB between looks.
const memPeriod = 5 * time.Millisecond

// heapReader reads the bytes of heap objects (live and not yet swept),
// reusing its sample. One goroutine uses it.
type heapReader struct{ sample []metrics.Sample }

const heapMetric = "/memory/classes/heap/objects:bytes"

func (h *heapReader) read() int64 {
	if h.sample == nil {
		h.sample = []metrics.Sample{{Name: heapMetric}}
	}
	metrics.Read(h.sample)
	if h.sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(h.sample[0].Value.Uint64())
}

// HeapBytes is the process's heap in use by objects (runtime/metrics
// /memory/classes/heap/objects:bytes), what the memory limit watches.
func HeapBytes() int64 {
	var h heapReader
	return h.read()
}

// SetMemoryAllowance sets how much the heap may grow during one call of
// this VM before the call is stopped with a memory limit error; limit is
// the limit the error names. n <= 0 stops nothing. The host calls it as
// the memory its agents hold changes; safe from any goroutine.
func (vm *VM) SetMemoryAllowance(n, limit int64) {
	if b := vm.guard.bud; b != nil {
		b.mem.Store(n)
		b.memLimit.Store(limit)
	}
}
