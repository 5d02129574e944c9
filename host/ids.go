package host

// Agent ids: picked by the host (1, 2, 3…, skipping ids in use), by the
// game's allocator (Options.NewID) or given at spawn (SpawnOptions.ID),
// and the sorted agent lists every id look-up relies on.

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
)

// MaxID is the largest agent id: ids are at least 1 and at most MaxID
// (2^53, the largest integer a Lua number holds exactly; where int has 32
// bits, the largest int).
const MaxID = maxSnapshotCount

// ErrBadID: an agent id below 1 or above MaxID (from Options.NewID,
// SpawnOptions.ID, an import document or its id map).
var ErrBadID = errors.New("agent id out of range (1 to " + maxIDText() + ")")

// maxIDText is MaxID as ErrBadID says it.
func maxIDText() string {
	if MaxID == 1<<53 {
		return "2^53"
	}
	return strconv.Itoa(MaxID)
}

// checkID refuses an id a new agent cannot take in this host: out of
// range, or held by an agent of the host (or one a script still holds).
func (h *Host) checkID(id int) error {
	if id < 1 || id > MaxID {
		return fmt.Errorf("agent %d: %w", id, ErrBadID)
	}
	if _, ok := h.target(id); ok {
		return fmt.Errorf("agent %d: %w", id, ErrIDInUse)
	}
	return nil
}

// agentID is a new agent's id, whether the host picked it (its own
// numbering, which only such ids move), and the seed given at spawn (0:
// none).
type agentID struct {
	id   int
	own  bool
	seed uint64
}

// newID is the id of the next agent the host makes: want when the game
// gives one, else Options.NewID's, else the host's next spawn number not in
// use.
func (h *Host) newID(want int) (agentID, error) {
	switch {
	case want != 0:
		return agentID{id: want}, h.checkID(want)
	case h.opts.NewID != nil:
		id, err := callNewID(h.opts.NewID)
		if err != nil {
			return agentID{}, err
		}
		return agentID{id: id}, h.checkID(id)
	}
	id := h.spawned + 1
	for {
		if _, ok := h.target(id); !ok {
			break
		}
		id++ // an imported agent holds it: the host's numbering skips it
	}
	return agentID{id: id, own: true}, nil
}

// callNewID calls the game's allocator; a panic in it is an error.
func callNewID(fn func() int) (id int, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("Options.NewID panicked: %v", v)
		}
	}()
	return fn(), nil
}

// seedRandom starts a's random numbers: from the seed given at spawn, or
// from Options.Seed and the agent's id, so an agent's stream is the same on
// every host (with the same Options.Seed) and follows it when it moves.
func (a *Agent) seedRandom(seed uint64) {
	if seed != 0 {
		a.setPCG(*rand.NewPCG(seed, 0))
	} else {
		a.setPCG(*rand.NewPCG(a.h.opts.Seed, uint64(a.id)))
	}
}

// setPCG makes p the agent's random source; the source and its Rand live
// in the agent (no allocation of their own).
func (a *Agent) setPCG(p rand.PCG) {
	a.ownPCG = p
	a.pcg = &a.ownPCG
	a.ownRand = *rand.New(a.pcg)
	a.rng = &a.ownRand
}

// insertByID adds a to list (sorted by id) at its place: an append for an
// id above every other, the common case.
func insertByID(list []*Agent, a *Agent) []*Agent {
	if n := len(list); n == 0 || list[n-1].id < a.id {
		return append(list, a)
	}
	i, _ := slices.BinarySearchFunc(list, a.id, func(x *Agent, id int) int { return x.id - id })
	return slices.Insert(list, i, a)
}

// mergeByID adds add (sorted by id, no id of list among them) to list
// (sorted by id): from the last added agent down, each finds its place by
// binary search and the agents after it move up in one copy, so a batch
// of k costs k searches and moves each agent of list after the first
// added one once (one memmove of that tail, not k); agents added above
// every id of list cost an append.
func mergeByID(list, add []*Agent) []*Agent {
	if len(add) == 0 {
		return list
	}
	n := len(list)
	if n == 0 || list[n-1].id < add[0].id {
		return append(list, add...)
	}
	list = slices.Grow(list, len(add))[:n+len(add)]
	end := n // list[:end] is what is still in its old place
	for j := len(add) - 1; j >= 0; j-- {
		p, _ := slices.BinarySearchFunc(list[:end], add[j].id, byID)
		copy(list[p+j+1:end+j+1], list[p:end])
		list[p+j] = add[j]
		end = p
	}
	return list
}

func byID(x *Agent, id int) int { return x.id - id }

// removeByID takes the agents of gone (each in list, or not there at all)
// out of list (sorted by id), keeping the order: a binary search each,
// and the agents between them move down in one copy per gap.
func removeByID(list []*Agent, gone []*Agent) []*Agent {
	at := make([]int, 0, len(gone))
	for _, a := range gone {
		if i, ok := slices.BinarySearchFunc(list, a.id, byID); ok && list[i] == a {
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return list
	}
	slices.Sort(at)
	w := at[0]
	for k, i := range at {
		next := len(list)
		if k+1 < len(at) {
			next = at[k+1]
		}
		w += copy(list[w:], list[i+1:next])
	}
	clear(list[w:])
	return list[:w]
}
