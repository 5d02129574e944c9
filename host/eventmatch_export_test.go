package host

// SetEventIndex sets when the decide phase indexes pending events by name
// (after `after` events looked at per pending event, plus slack; slack -1:
// at once) and returns what restores the defaults.
func SetEventIndex(after, slack int) (restore func()) {
	a, s := indexAfter, indexSlack
	indexAfter, indexSlack = after, slack
	return func() { indexAfter, indexSlack = a, s }
}
