// Package syntax explains a syntax error of gopher-lua's parser as PUC Lua
// would: what was expected and which opening it closes ("'end' expected (to
// close 'function' at line 3) near <eof>"), where the parser itself says
// only "syntax error near 'x'".
//
// It reads the chunk's tokens with gopher-lua's scanner and keeps a stack of
// the blocks and brackets opened. It is only asked about chunks that failed
// to parse, and its answer is taken only when it points at or before the
// parser's line, so a wrong guess cannot move an error later than the
// parser found it.
package syntax
