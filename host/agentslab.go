package host

import "unsafe"

// Agents are made in blocks: newAgent takes each from a block of
// agentBlock agents allocated at once, as the agents' state records are
// (runPool), instead of one allocation per agent. A spawn or a load of
// 50,000 agents then makes 782 allocations for them instead of 50,000,
// and the agents spawned together lie together in memory, in id order, as
// the tick visits them.
//
// What a block keeps alive: the garbage collector frees a block when none
// of its agents is reachable. An agent removed from its host (Remove,
// Despawn, Export) while another agent of its block lives stays in memory
// with its block, and so does what it still refers to (its context table
// and records), at most agentBlock-1 removed agents per living one.
// Removing every agent of a block frees it; a host of 50,000 agents keeps
// at most one block (64 agents) for one survivor.

// agentBlock is how many agents one block holds: the ids workerFor keeps
// on one worker.
const agentBlock = 64

// agentCell is an Agent padded to a multiple of 64 bytes, so that each
// agent of a block starts a cache line, as one allocated on its own does
// (its size class is a multiple of 64): Agent's hot fields are laid out
// for lines that start with it. A block is larger than 32 KiB, so it is
// page-aligned.
type agentCell struct {
	a Agent
	_ [(64 - unsafe.Sizeof(Agent{})%64) % 64]byte
}

// takeAgent is a zero Agent from w's current block (a new block when it
// is used up).
func (w *worker) takeAgent() *Agent {
	if w.cells == nil {
		w.cells = agentBlocks()
	}
	return w.cells()
}

// agentBlocks hands out the agents of one block after another. (It is a
// function, not a slice in worker: a []agentCell there would make the
// cell's size depend on itself through Agent's worker.)
func agentBlocks() func() *Agent {
	var cells []agentCell
	return func() *Agent {
		if len(cells) == 0 {
			cells = make([]agentCell, agentBlock)
		}
		a := &cells[0].a
		if cells = cells[1:]; len(cells) == 0 {
			cells = nil // an empty slice would still hold the block
		}
		return a
	}
}
