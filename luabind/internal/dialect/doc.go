// Package dialect is luaai's AST pass between parse.Parse and lua.Compile
// (Compile in vm.go, so behaviours, modules, test files, hot reloads and
// load/loadstring all get it). gopher-lua 1.1.2 compiles some statements
// with other than Lua 5.1 semantics; the pass rewrites exactly those into
// equivalent Lua that it compiles correctly, and leaves every other
// statement as the parser made it (the same bytecode as without the pass).
// Each kind below was found by, and is kept in, the differential tests
// against PUC Lua 5.1 (luabind's dialect_diff_test.go, testdata/dialect).
//
// The package owns this rewrite only; it imports gopher-lua's ast and
// nothing of luaai.
//
// Assignments (AssignStmt) with more than one target or value:
//
//  1. Order (yuin/gopher-lua#440, #158, #315). Lua 5.1 (manual §2.4.3)
//     evaluates every expression before it assigns anything; gopher-lua
//     writes each value straight into the register of a local target, so a
//     later value, or a table or key on the left, reads the new value:
//     `a, b = b, a` gives 2 2. Likewise when a call on the right reads or
//     writes a captured local target through an upvalue, or raises an error
//     after half the targets were written.
//  2. Register shift: when the value of a table target is a plain local,
//     gopher-lua stores from that local's register but still steps its
//     register counter back, so targets to the left stored from the counter
//     get the wrong value: `g, t.a = g, x` sets g to the string "a".
//  3. A call whose single result goes to the last parameter (`p = (f())`,
//     `p, q = f(), 1`) is compiled in place from that parameter's register
//     up, over the locals declared after it.
//  4. `...` cut to one value for a local (`a, g = ..., 1`, `a = (...)`)
//     counts registers wrongly: the next value overwrites another local, or
//     the VM crashes on a register never written.
//
// and in any assignment:
//
//  5. and/or into an existing local x: when the left operand of an and is
//     neither a local nor a constant and is false or nil, that value never
//     reaches x, which keeps its old value (`x = t.missing and 1`); and an
//     operand that only decides where to go next is copied into x before a
//     later operand reads x (`x = ((a and b) or c) and x`).
//  6. `t[k] = f()` with k a local captured by a closure: Lua 5.1 reads k
//     after f runs, gopher-lua before.
//
// Such an assignment becomes
//
//	do
//	  local (assign 1), ..., (assign n) = <tables/keys on the left>, <values>
//	  target_last = (assign n) ... target_1 = (assign k)
//	end
//
// which does what PUC Lua 5.1's code generator does, step by step: the
// table and key expressions of indexed targets first, left to right (a
// plain local or a constant is used as is at the store, as PUC uses its
// register; but when a local target further right is that local, its value
// is copied at that point, like PUC's check_conflict), then the values left
// to right through one `local` statement (which gopher-lua gets right:
// multiple results of a final call or `...`, nil for missing values, extra
// expressions evaluated), then the targets assigned last to first (so
// `a, a = 1, 2` leaves 1), each by a single assignment. The names
// "(assign N)" cannot be written in a script, so they shadow nothing, and
// the do block ends their scope with the statement, so they count against
// the 200-locals limit only while it runs. Every node created takes its
// line from the node it stands for, so errors keep their file:line.
//
// Other statements:
//
//  7. `local f = function() ... f ... end`: gopher-lua binds the inner f to
//     the new local, as for `local function f`; in Lua 5.1 it is the f
//     outside (`local print = function(...) print(...) end` recursed
//     forever). When the body names f, the statement gets an extra value,
//     `local f = function() ... end, nil`, which gopher-lua compiles
//     without binding early. `local function f` is left alone (only that
//     form gets a last line from the parser).
//  8. A jump back onto a JMP (#540): see dlFixJumps.
//  9. A generic for with fewer than three values (#514): see dlPadForExprs.
//  10. A for header that reads a local which a call in the same header
//     changes through an upvalue: see forNeedsHoist.
package dialect
