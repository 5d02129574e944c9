// Package srcpos finds where things are written in Lua source without
// running it: a tokenizer that keeps lines (names, strings, punctuation;
// comments and whitespace skipped), and the lookup of a machine's table
// constructor that tells the line of each state's key and of each of its
// transitions. luabind uses it to point definition errors, and luaai
// check's warnings, at the line of the state or transition concerned.
//
// It never fails: odd input gives odd tokens, and a lookup that does not
// find what it expects returns nil. It imports only the standard library.
package srcpos
