package host

// ai.sender(): who sent the event an agent is handling.

// Sender is ai.sender(): in the callbacks that handle an event — the when
// and run of the transitions it is offered to, and the enter or resume of
// the state it leads to — the id of the agent that sent it with ai.send_to
// or ai.send; ok is false for an event from the game (Agent.Send,
// agent:send, the CLI's inputs, the inspector) and in every other
// callback. The engine sets it when the event is queued; nothing in a
// payload can change it.
func (r runner) Sender() (id int, ok bool) {
	a := r.a
	if a.evFrom == 0 || a.curScore {
		return 0, false
	}
	switch a.curKind {
	case cbWhen, cbRun, cbEnter, cbResume:
		return a.evFrom, true
	}
	return 0, false
}
