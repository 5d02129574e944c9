package host

import "unsafe"

// strNums numbers the strings a binary save writes once and then names by
// number. Most strings of a save are the same bytes again and again (a
// behaviour's name, a context key boxed once per behaviour, a string
// constant of a script), so in front of the map by text sits a small cache
// by where a string's bytes lie and its length, which needs no hashing of
// the text: the same bytes are the same string (a cached pointer keeps
// them alive, so they cannot be reused for another).
type strNums struct {
	m     map[string]int
	cache [256]strSlot
}

// strSlot is one cached string: its bytes, length and number + 1 (0:
// empty slot).
type strSlot struct {
	p    *byte
	n    int
	num1 int
}

// slot is the cache slot of s.
func (s *strNums) slot(str string) (*strSlot, *byte) {
	var p *byte
	if len(str) > 0 {
		p = unsafe.StringData(str)
	}
	h := uintptr(unsafe.Pointer(p))
	return &s.cache[(h>>3^h>>11^uintptr(len(str)))&255], p
}

// get is the number of str, if it has one.
func (s *strNums) get(str string) (int, bool) {
	sl, p := s.slot(str)
	if sl.num1 > 0 && sl.p == p && sl.n == len(str) {
		return sl.num1 - 1, true
	}
	num, ok := s.m[str]
	if ok {
		*sl = strSlot{p, len(str), num + 1}
	}
	return num, ok
}

// add numbers str (which has no number yet) num.
func (s *strNums) add(str string, num int) {
	if s.m == nil {
		s.m = map[string]int{}
	}
	s.m[str] = num
	sl, p := s.slot(str)
	*sl = strSlot{p, len(str), num + 1}
}

// forget takes str's number back.
func (s *strNums) forget(str string) {
	delete(s.m, str)
	s.cache = [256]strSlot{}
}

// len is how many strings are numbered.
func (s *strNums) len() int { return len(s.m) }
