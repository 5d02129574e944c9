package host

// Moving agents between hosts (zones of a world, shards of a server):
// Export takes agents out into a document with nothing run, Import adds
// them to another host under the same ids or an id map, and they go on
// exactly as if they had stayed.

import (
	"fmt"
	"slices"
)

// Export takes agents out of the host into one document (the snapshot
// format, the agents in id order) for Host.Import in another host: nothing
// runs (no exit hooks, no hook of Options), and the agents are removed as
// Remove removes them. Their pending events, messages (with their senders),
// requests, timers and random numbers go with them. Nothing is taken out
// unless every agent could be saved (ErrUnsaveable names the field); an
// agent of another host (ErrWrongHost), one removed (ErrRemoved), one a
// script spawned (it is not the host's to move), one twice in the list, or
// a call while the host ticks (ErrReentrant) is an error and nothing
// moves. It costs in proportion to the agents exported (and their data),
// plus one pass over the host's agents after the first of them.
func (h *Host) Export(agents ...*Agent) ([]byte, error) {
	if err := h.usable(); err != nil {
		return nil, err
	}
	if h.running {
		return nil, fmt.Errorf("export: %w", ErrReentrant)
	}
	list := slices.Clone(agents)
	slices.SortFunc(list, func(x, y *Agent) int { return x.id - y.id })
	for i, a := range list {
		if a == nil {
			return nil, fmt.Errorf("export: a nil agent")
		}
		if a.h != h {
			return nil, fmt.Errorf("export: agent %d: %w", a.id, ErrWrongHost)
		}
		if err := a.usable(); err != nil {
			return nil, fmt.Errorf("export: agent %d: %w", a.id, err)
		}
		if a.ticking {
			return nil, fmt.Errorf("export: agent %d: %w", a.id, ErrTicking)
		}
		if x, ok := h.Agent(a.id); !ok || x != a {
			return nil, fmt.Errorf("export: agent %d was spawned by a script (ai.spawn): the script ticks it, the host cannot move it", a.id)
		}
		if i > 0 && list[i-1] == a {
			return nil, fmt.Errorf("export: agent %d is listed twice", a.id)
		}
	}
	copies := make([]saveCopy, len(list))
	enc := &encoder{}
	arena := newSaveArena(list)
	for i, a := range list {
		if err := a.copyForSave(enc, &copies[i], arena, false, false); err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
	}
	data := appendCopies(make([]byte, 0, len(enc.buf)+400*len(list)+64), copies)
	h.roster++
	byWorker := map[*worker][]*Agent{}
	for _, a := range list {
		byWorker[a.w] = append(byWorker[a.w], a)
		a.removed = true
		h.release(a)
	}
	h.agents = removeByID(h.agents, list)
	for w, gone := range byWorker {
		w.agents = removeByID(w.agents, gone)
	}
	return data, nil
}

// ImportOptions adjust Host.Import. The zero value imports every agent
// under its own id, with bound Go values left nil and nothing attached.
type ImportOptions struct {
	// IDs renames agents: the agent saved as id k takes id IDs[k], and
	// every pending event or message it sent to itself or another moved
	// agent names the new id as its sender. An agent not in it keeps its
	// id; a key that names no agent of the document, or two agents given
	// one id, is an error. Ids inside contexts are the game's data: they
	// are not renamed. The default (zero) value renames nothing.
	IDs map[int]int
	// Rebind is RestoreOptions.Rebind: it gives back the Go values bound
	// in the agents' contexts. The default (zero) value leaves them nil.
	Rebind func(a *Agent, path string) any
	// Attach is RestoreOptions.Attach: called for every imported agent
	// (after Rebind) with its synced keys, for the game to attach its
	// user data and structs; its error refuses the whole import. The
	// default (zero) value attaches nothing.
	Attach func(a *Agent, synced []string) error
}

// Import adds the agents of a document written by Export (or a snapshot)
// to this host, running one of the given behaviours (by name, as Restore
// picks them), and returns them in the document's order. They go on
// exactly where they were: the same ids (or IDs'), states, stacks, timers,
// requests, random numbers, pending events and messages (each message in
// its place among those the receiver gets from this host's agents: hosts
// that tick together keep the order of one host). No hook of the scripts
// runs; OnTransition sees each agent with kind "restore". The host's own
// numbering does not move: agents it spawns later skip the ids imported
// agents hold (and with Options.NewID it never picks one).
//
// Every agent is checked before any is added: an id in use in the host, or
// twice in the document (ErrIDInUse), out of range (ErrBadID), a corrupt or
// crafted document (ErrBadSnapshot), a failing Attach: an error, and no
// agent is added. It costs in proportion to the agents imported, not to
// the host's: ids are looked up in its sorted lists and the new agents
// merged in with one pass over the agents after the first of them.
func (h *Host) Import(data []byte, opts ImportOptions, behaviours ...*Behaviour) ([]*Agent, error) {
	return h.restoreAs(data, restoreMode{
		RestoreOptions: RestoreOptions{Rebind: opts.Rebind, Attach: opts.Attach},
		ids:            opts.IDs,
		imported:       true,
	}, behaviours)
}
