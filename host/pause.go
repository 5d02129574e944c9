package host

// Pause stops the host's ticks: until Resume, Tick and TickContext tick
// nothing and return nil, so a game loop goes on drawing its frames (the
// game asks Paused when it cares; TickNumber does not move). An
// inspector's page still gets its frame, and its commands are still
// applied. Agents keep their state; Agent.Tick still ticks one agent.
// Pausing a paused host changes nothing but ends a Step. Call it on the
// goroutine that owns h (the inspector's pause button calls it between
// ticks); not to be confused with Agent.Suspend, which stops one agent.
func (h *Host) Pause() { h.paused, h.steps = true, 0 }

// Resume lets a paused host tick again from its next Tick, and ends a Step
// that has ticks left; on a host that is not paused it does nothing. Call
// it on the goroutine that owns h. (Agent.Unsuspend is the one that lets a
// suspended agent tick again.)
func (h *Host) Resume() { h.paused, h.steps = false, 0 }

// Step pauses the host and lets its next n Ticks run (a frame advance for
// debugging), after which the host stays paused until Resume; n < 1
// counts as 1, and a Step replaces the ticks left of an earlier one. Call
// it on the goroutine that owns h.
func (h *Host) Step(n int) { h.paused, h.steps = true, max(n, 1) }

// Paused reports whether the host is paused (Pause, Step; true during
// the ticks a Step lets run). Call it on the goroutine that owns h.
func (h *Host) Paused() bool { return h.paused }
