package host

import "encoding/json"

// SnapshotByReflection is what encoding/json writes for h's agents'
// records: what Snapshot must write, byte for byte.
func SnapshotByReflection(h *Host) ([]byte, error) {
	copies, _, err := h.saveCopy()
	if err != nil {
		return nil, err
	}
	f := snapshotFile{Version: SnapshotVersion, Agents: []agentSnapshot{}}
	for i := range copies {
		f.Agents = append(f.Agents, copies[i].records())
	}
	return json.Marshal(f)
}
