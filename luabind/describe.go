package luabind

import "sort"

// NativeFields lists the context fields a native condition or scorer reads
// (dotted paths as written: "target.distance"), sorted, each once. Lua
// functions, constants and anything else contribute nothing: what a Lua
// function reads cannot be known without running it.
func NativeFields(v any) []string {
	set := map[string]bool{}
	collectFields(v, set)
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

func collectFields(v any, set map[string]bool) {
	switch n := v.(type) {
	case *isCond:
		set[n.path.name] = true
	case *eqCond:
		set[n.path.name] = true
	case *numCond:
		set[n.path.name] = true
	case *listCond:
		for _, c := range n.cs {
			collectFields(c, set)
		}
	case *nonCond:
		collectFields(n.c, set)
	case *fieldScore:
		set[n.path.name] = true
	case *condScore:
		collectFields(n.c, set)
	case *inverseScore:
		collectFields(n.s, set)
	case *listScore:
		for _, s := range n.ss {
			collectFields(s, set)
		}
	case *weightScore:
		collectFields(n.s, set)
	case *normalizeScore:
		collectFields(n.s, set)
	case *curveScore:
		collectFields(n.s, set)
	}
}

// Describe names a condition or scorer as traces and graphs show it: a
// native as "gt(hunger, 0.5)", a constant as "true" or "0.5", a Lua
// function as "fn@file:line". nil gives "".
func Describe(v any) string {
	switch v := v.(type) {
	case Scorer:
		return scorerName(v)
	case Cond:
		return condName(v)
	}
	return ""
}
