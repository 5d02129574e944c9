package explore

import (
	"context"
	"errors"
	"math"
	"slices"
)

// maxShrinkRuns bounds the runs spent shortening one finding.
const maxShrinkRuns = 400

// shrinker shortens one finding's inputs.
type shrinker struct {
	ctx  context.Context
	cast []Cast
	o    *Options
	key  string
	runs int
	seq  []Step  // the shortest sequence so far that causes it
	last failure // the failure as the latest such sequence shows it
}

// errCut: ctx ended during a run, which then proves nothing.
var errCut = errors.New("cut short")

// shrink shortens f.Inputs to fewer and simpler inputs that still cause
// f's failure on a fresh host (as Hypothesis shrinks: drop inputs, then
// simplify the ones left), and sets f.Words, f.Fresh and, from the
// shortest sequence's run, f.Message and f.Agent. When ctx ends first, it
// keeps the shortest sequence found by then and sets f.CutShort.
func shrink(ctx context.Context, cast []Cast, o *Options, f *Finding) error {
	s := &shrinker{ctx: ctx, cast: cast, o: o, key: f.key}
	f.Words = castWords(f.Inputs, cast)
	cut, ok, err := s.causes(merge(f.Inputs))
	if err != nil || !ok {
		return s.cut(f, err)
	}
	f.Fresh, s.seq = true, cut
	defer func() {
		f.Inputs = s.seq
		f.Words = castWords(s.seq, cast)
	}()
	for pass := 0; pass < 3; pass++ {
		before := len(s.seq)
		for _, step := range []func() error{s.drop, s.fewerTicks, s.simplify, s.smallerNumbers} {
			if err := step(); err != nil {
				return s.cut(f, err)
			}
		}
		if len(s.seq) == before {
			break
		}
	}
	if _, ok, err := s.causes(s.seq); err != nil || !ok {
		return s.cut(f, err)
	}
	f.Message, f.Agent, f.Script = s.last.message, s.last.agent+1, castOf(cast, s.last.agent)
	return nil
}

// cut turns the error of a run ctx cut short into f.CutShort.
func (s *shrinker) cut(f *Finding, err error) error {
	if errors.Is(err, errCut) {
		f.CutShort = true
		return nil
	}
	return err
}

// causes runs seq on a fresh host, so that the test written from it sees
// what the shortening saw; it returns the sequence cut after the tick
// where the failure appeared. A run that ctx's end cut short is errCut.
func (s *shrinker) causes(seq []Step) ([]Step, bool, error) {
	if s.ctx.Err() != nil {
		return nil, false, errCut
	}
	s.runs++
	r, err := newRunner(s.ctx, s.cast, s.o)
	if err != nil {
		if s.ctx.Err() != nil {
			return nil, false, errCut
		}
		return nil, false, err
	}
	defer r.close()
	out, err := r.run(seq, s.key)
	if s.ctx.Err() != nil {
		return nil, false, errCut
	}
	if err != nil {
		return nil, false, err
	}
	for _, fl := range out.failures {
		if fl.key == s.key {
			s.last = fl
			return cutAt(seq, fl), true, nil
		}
	}
	return nil, false, nil
}

// try keeps cand when it still causes the failure.
func (s *shrinker) try(cand []Step) (bool, error) {
	if s.runs >= maxShrinkRuns {
		return false, nil
	}
	cut, ok, err := s.causes(merge(cand))
	if ok {
		s.seq = cut
	}
	return ok, err
}

// drop drops runs of inputs, halving the run length.
func (s *shrinker) drop() error {
	for chunk := max(len(s.seq)/2, 1); chunk >= 1; chunk /= 2 {
		for i := 0; i+chunk <= len(s.seq); {
			ok, err := s.try(slices.Delete(clone(s.seq), i, i+chunk))
			if err != nil {
				return err
			}
			if !ok {
				i += chunk
			}
		}
	}
	return nil
}

// fewerTicks finds, by bisection, the fewest ticks each tick input needs.
func (s *shrinker) fewerTicks() error {
	for i := 0; i < len(s.seq); i++ {
		if s.seq[i].Op != OpTick || s.seq[i].N == 1 {
			continue
		}
		lo, hi := 1, s.seq[i].N
		for lo < hi {
			mid := (lo + hi) / 2
			next := clone(s.seq)
			next[i].N = mid
			ok, err := s.try(next)
			if err != nil {
				return err
			}
			if ok {
				hi = mid
			} else {
				lo = mid + 1
			}
			if i >= len(s.seq) || s.seq[i].Op != OpTick {
				break // the cut after the failure took the input away
			}
		}
	}
	return nil
}

// smallerNumbers brings each number a set writes as close to 0 as still
// causes the failure, by bisection on whole numbers (1,000,000 that
// fails when above 41 becomes 42).
func (s *shrinker) smallerNumbers() error {
	for i := 0; i < len(s.seq); i++ {
		st := s.seq[i]
		if st.Op != OpSet || st.Value.kind != vNum {
			continue
		}
		v := st.Value.n
		if v != math.Trunc(v) || math.Abs(v) > 1<<52 || math.Abs(v) < 2 {
			continue
		}
		sign, hi, lo := math.Copysign(1, v), math.Abs(v), 0.0 // hi fails; lo is not known to
		for hi-lo > 1 {
			mid := math.Floor((lo + hi) / 2)
			next := clone(s.seq)
			next[i].Value = numValue(sign * mid)
			ok, err := s.try(next)
			if err != nil {
				return err
			}
			if ok {
				hi = mid
			} else {
				lo = mid
			}
			if i >= len(s.seq) || s.seq[i].Op != OpSet {
				break
			}
		}
	}
	return nil
}

// simplify replaces each input by a simpler one that still causes it.
func (s *shrinker) simplify() error {
	for i := 0; i < len(s.seq); i++ {
		for _, cand := range simpler(s.seq[i]) {
			next := clone(s.seq)
			next[i] = cand
			ok, err := s.try(next)
			if err != nil {
				return err
			}
			if ok || i >= len(s.seq) {
				break
			}
		}
	}
	return nil
}

// cutAt is seq up to the tick where fl appeared.
func cutAt(seq []Step, fl failure) []Step {
	cut := clone(seq[:fl.step+1])
	if fl.step >= 0 && cut[fl.step].Op == OpTick {
		cut[fl.step].N = fl.tick
	}
	return cut
}

// simpler lists simpler versions of one input, simplest first.
func simpler(s Step) []Step {
	var out []Step
	switch s.Op {
	case OpTick:
		for _, n := range []int{1, s.N / 2, s.N - 1} {
			if n >= 1 && n < s.N {
				c := s
				c.N = n
				out = append(out, c)
			}
		}
		if s.Dt != 0.1 {
			c := s
			c.Dt = 0.1
			out = append(out, c)
		}
	case OpSend:
		// A payload keeps every key (a game sends them all): its numbers
		// become 0.
		if s.Payload != nil {
			for i, f := range s.Payload.fields {
				if f.val.kind == vNum && f.val.n != 0 {
					p := *s.Payload
					p.fields = slices.Clone(p.fields)
					p.fields[i].val = numValue(0)
					c := s
					c.Payload = &p
					out = append(out, c)
				}
			}
		}
	case OpSet:
		for _, v := range []Value{numValue(0), strValue(""), boolValue(false)} {
			if v.kind == s.Value.kind && v.lua() != s.Value.lua() {
				c := s
				c.Value = v
				out = append(out, c)
			}
		}
	}
	return out
}

// merge joins neighbouring ticks of the same dt: the same run, told
// shorter.
func merge(seq []Step) []Step {
	var out []Step
	for _, s := range seq {
		if n := len(out); n > 0 && s.Op == OpTick && out[n-1].Op == OpTick && out[n-1].Dt == s.Dt {
			out[n-1].N += s.N
			continue
		}
		out = append(out, s)
	}
	return out
}
