// Package lcomp runs short Lua functions — transition conditions, utility
// scorers, small updates — without gopher-lua's call setup, frame push and
// per-instruction context poll, with exactly the VM's result.
//
// Compile checks a function's bytecode once: it accepts only straight-line
// code and forward jumps (if/elseif/else, and, or, not), locals, upvalue
// and global reads, field reads and writes with constant string keys
// (ctx.a, ctx.a.b, payload.x), number arithmetic, comparisons, #, and calls
// of the math functions the caller names (math.min, max, abs, floor,
// sqrt); anything else (loops, closures, other calls, concatenation,
// varargs, global or upvalue writes) is refused with the reason and line.
// An accepted function runs each instruction at most once, so it cannot
// run away: it needs no budget poll, and its step count (what the VM's
// instruction budget would charge) is known when it ends.
//
// Run executes the decoded program over the same gopher-lua values the VM
// would see: first as a tree of Go closures built once from the bytecode
// where it has one (expr.go: one expression over numbers; branch.go:
// forward jumps and several writes, one path of the tree per way through
// the code), else, or when the tree gives up, by an interpreter loop over
// the instructions (run.go). Whenever the VM could do anything but the plain operation on
// the values at hand — a metamethod could answer (a table with a
// metatable missing the key, an operand that is not a number, a string
// that Lua would coerce), an error would be raised (arithmetic on nil,
// indexing a non-table), a callee is not the expected math function —
// Run undoes the field writes it made, in reverse, and reports Fallback:
// the caller then calls the function through the VM, which redoes the
// same writes in the same order and produces the VM's own result or error
// (message, line and traceback). So the compiled path is only ever taken
// where its outcome is the VM's by construction; the differential tests
// check it against the VM on generated functions and contexts.
package lcomp
