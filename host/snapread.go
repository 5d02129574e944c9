package host

// The snapshot reader: JSON read straight from the document's bytes, with
// no reflection and no token boxing. readSnapshotFile reads the document's
// records (the agents, their states and machines) for a load; tokReader
// reads the Lua values in it for the decoder (snapdecode.go).
//
// readSnapshotFile takes only the documents Save writes, checked whole:
// anything else (a field it does not know, a null, a key twice, a key in
// other case, bad JSON) makes it give up, and the load reads the document
// with encoding/json instead, which accepts and refuses what it always did
// with its own errors.
import (
	"errors"
)

// errNotFast: readSnapshotFile gives the document to encoding/json.
var errNotFast = errors.New("not a document the fast reader takes")

// readerAgentFields is how many fields of agentSnapshot the reader knows
// (TestSnapshotReaderFields): a field it does not know sends every
// document that has it to encoding/json.
const readerAgentFields = 17

// once gives up on a field seen twice in one object.
type once uint32

func (o *once) see(bit uint) error {
	if *o&(1<<bit) != 0 {
		return errNotFast
	}
	*o |= 1 << bit
	return nil
}

// readSnapshotFile reads a snapshot document as Save writes it, or fails
// with errNotFast.
func readSnapshotFile(data []byte) (snapshotFile, error) {
	var f snapshotFile
	v, err := readSnapshot(data, func(s *jsonBytes) error {
		f.Agents = []agentSnapshot{}
		return s.array(func() error {
			f.Agents = append(f.Agents, agentSnapshot{})
			return s.agent(&f.Agents[len(f.Agents)-1])
		})
	})
	if err != nil {
		return snapshotFile{}, err
	}
	f.Version = v
	return f, nil
}

// streamSnapshotFile reads a snapshot document as Save writes it, handing
// each agent's record to take as it is read (the record is reused: take
// keeps nothing of it but Synced), and returns its version. It fails with
// errNotFast where readSnapshotFile does, and with take's errors.
func streamSnapshotFile(data []byte, take func(*agentSnapshot) error) (int, error) {
	var a agentSnapshot
	return readSnapshot(data, func(s *jsonBytes) error {
		return s.array(func() error {
			states, machines := a.States, a.Machines
			for k := range states {
				delete(states, k) // keeps the map's memory, where clear may not
			}
			for k := range machines {
				delete(machines, k)
			}
			a = agentSnapshot{States: states, Machines: machines}
			if err := s.agent(&a); err != nil {
				return err
			}
			return take(&a)
		})
	})
}

// readSnapshot reads the document's version and, with agents, its list of
// agents (which is not null).
func readSnapshot(data []byte, agents func(*jsonBytes) error) (int, error) {
	s := &jsonBytes{b: data}
	var seen once
	version := 0
	err := s.object(func(k []byte) error {
		switch string(k) {
		case "version":
			if err := seen.see(0); err != nil {
				return err
			}
			v, err := s.int()
			version = v
			return err
		case "agents":
			if err := seen.see(1); err != nil || s.peek() == 'n' {
				return errNotFast
			}
			return agents(s)
		}
		return errNotFast
	})
	if err != nil {
		return 0, err
	}
	if s.peek() != 0 || s.i != len(data) {
		return 0, errNotFast // data after it: encoding/json says so
	}
	return version, nil
}

// agent reads one agent's record: readerAgentFields fields.
//
// It is long because it is one switch over the fields of an agent's record,
// each case a few lines.
func (s *jsonBytes) agent(a *agentSnapshot) error {
	var seen once
	var err error
	return s.object(func(k []byte) error {
		switch string(k) {
		case "id":
			if err = seen.see(0); err == nil {
				a.ID, err = s.int()
			}
		case "behaviour":
			if err = seen.see(1); err == nil {
				a.Behaviour, err = s.text()
			}
		case "ticks":
			if err = seen.see(2); err == nil {
				a.Ticks, err = s.int()
			}
		case "clock":
			if err = seen.see(3); err == nil {
				a.Clock, err = s.float()
			}
		case "rng":
			if err = seen.see(4); err == nil {
				a.RNG, err = s.text()
			}
		case "ctx":
			if err = seen.see(5); err == nil {
				a.Ctx, err = s.skip(0)
			}
		case "bound":
			if err = seen.see(6); err == nil {
				a.Bound, err = s.strings()
			}
		case "states":
			if err = seen.see(7); err == nil {
				if s.null() {
					a.States = nil
					break
				}
				if a.States == nil {
					a.States = map[string]stateSnapshot{}
				}
				err = s.mapObject(func(path string) error {
					if _, dup := a.States[path]; dup {
						return errNotFast
					}
					var st stateSnapshot
					err := s.state(&st)
					a.States[path] = st
					return err
				})
			}
		case "machines":
			if err = seen.see(8); err == nil {
				if s.null() {
					a.Machines = nil
					break
				}
				if a.Machines == nil {
					a.Machines = map[string]machineSnapshot{}
				}
				err = s.mapObject(func(path string) error {
					if _, dup := a.Machines[path]; dup {
						return errNotFast
					}
					var m machineSnapshot
					err := s.machine(&m)
					a.Machines[path] = m
					return err
				})
			}
		case "events":
			if err = seen.see(9); err == nil {
				a.Events, err = s.events()
			}
		case "messages":
			if err = seen.see(10); err == nil {
				a.Messages, err = s.events()
			}
		case "suspended":
			if err = seen.see(11); err == nil {
				a.Suspended, err = s.text()
			}
		case "overruns":
			if err = seen.see(12); err == nil {
				a.Overruns, err = s.int()
			}
		case "owed":
			if err = seen.see(13); err == nil {
				a.Owed, err = s.float()
			}
		case "interval":
			if err = seen.see(14); err == nil {
				a.Interval, err = s.int()
			}
		case "synced":
			if err = seen.see(15); err == nil {
				a.Synced, err = s.strings()
			}
		case "kind":
			if err = seen.see(16); err == nil {
				a.Kind, err = s.text()
			}
		default:
			err = errNotFast
		}
		return err
	})
}

func (s *jsonBytes) state(st *stateSnapshot) error {
	var seen once
	var err error
	return s.object(func(k []byte) error {
		switch string(k) {
		case "time":
			if err = seen.see(0); err == nil {
				st.Time, err = s.float()
			}
		case "every":
			if err = seen.see(1); err == nil {
				st.Every, err = s.float()
			}
		case "step":
			if err = seen.see(2); err == nil {
				st.Step, err = s.int()
			}
		case "step_time":
			if err = seen.see(3); err == nil {
				st.StepTime, err = s.float()
			}
		case "step_seen":
			if err = seen.see(4); err == nil {
				st.StepSeen, err = s.bool()
			}
		case "tree_time":
			if err = seen.see(5); err == nil {
				st.TreeTime, err = s.float()
			}
		case "tree":
			if err = seen.see(6); err == nil {
				if s.null() {
					break
				}
				st.Tree = map[string]nodeSnapshot{}
				err = s.mapObject(func(path string) error {
					if _, dup := st.Tree[path]; dup {
						return errNotFast
					}
					var n nodeSnapshot
					err := s.node(&n)
					st.Tree[path] = n
					return err
				})
			}
		default:
			err = errNotFast
		}
		return err
	})
}

func (s *jsonBytes) node(n *nodeSnapshot) error {
	var seen once
	var err error
	return s.object(func(k []byte) error {
		switch string(k) {
		case "running":
			if err = seen.see(0); err == nil {
				n.Running, err = s.bool()
			}
		case "child":
			if err = seen.see(1); err == nil {
				n.Child, err = s.int()
			}
		case "start":
			if err = seen.see(2); err == nil {
				n.Start, err = s.float()
			}
		case "done":
			if err = seen.see(3); err == nil {
				n.Done, err = s.text()
			}
		case "cooled_at":
			if err = seen.see(4); err == nil {
				if s.null() {
					break
				}
				var f float64
				f, err = s.float()
				n.Cool = &f
			}
		default:
			err = errNotFast
		}
		return err
	})
}

func (s *jsonBytes) machine(m *machineSnapshot) error {
	var seen once
	var err error
	return s.object(func(k []byte) error {
		switch string(k) {
		case "stack":
			if err = seen.see(0); err == nil {
				m.Stack, err = s.strings()
			}
		case "history":
			if err = seen.see(1); err == nil {
				m.History, err = s.text()
			}
		case "decide_acc":
			if err = seen.see(2); err == nil {
				m.DecideAcc, err = s.float()
			}
		case "request":
			if err = seen.see(3); err == nil {
				if s.null() {
					break
				}
				m.Request = &requestSnapshot{}
				err = s.request(m.Request)
			}
		default:
			err = errNotFast
		}
		return err
	})
}

func (s *jsonBytes) request(r *requestSnapshot) error {
	var seen once
	var err error
	return s.object(func(k []byte) error {
		switch string(k) {
		case "kind":
			if err = seen.see(0); err == nil {
				r.Kind, err = s.text()
			}
		case "target":
			if err = seen.see(1); err == nil {
				r.Target, err = s.text()
			}
		case "where":
			if err = seen.see(2); err == nil {
				r.Where, err = s.text()
			}
		case "payload":
			if err = seen.see(3); err == nil {
				r.Payload, err = s.skip(0)
			}
		default:
			err = errNotFast
		}
		return err
	})
}

func (s *jsonBytes) events() ([]eventSnapshot, error) {
	if s.null() {
		return nil, nil
	}
	out := []eventSnapshot{}
	err := s.array(func() error {
		var ev eventSnapshot
		var seen once
		var err error
		err2 := s.object(func(k []byte) error {
			switch string(k) {
			case "name":
				if err = seen.see(0); err == nil {
					ev.Name, err = s.text()
				}
			case "payload":
				if err = seen.see(1); err == nil {
					ev.Payload, err = s.skip(0)
				}
			case "from":
				if err = seen.see(2); err == nil {
					ev.From, err = s.int()
				}
			default:
				err = errNotFast
			}
			return err
		})
		out = append(out, ev)
		return err2
	})
	return out, err
}
