// Package prefetch asks the CPU to bring memory into its caches ahead of
// use, without waiting for it: the engine's tick sweeps thousands of
// agents whose records it reads once each, and a record fetched while the
// agent before it ticks is not a cache miss when its own tick comes.
//
// A prefetch is only a hint: it never faults (any address may be given),
// changes no memory and no result. On architectures without an assembly
// version it does nothing.
package prefetch
