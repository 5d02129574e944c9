// Package fuzzgen writes Lua behaviour definitions from fuzz bytes, for the
// fuzz targets of luabind (loading and validating) and inspect (linting and
// drawing). It is test support: only _test.go files import it, and it
// imports nothing of this module.
package fuzzgen
