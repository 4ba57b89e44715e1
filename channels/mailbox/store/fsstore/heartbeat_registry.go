package fsstore

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// renewHeartbeats sets in entries the later heartbeats of the agents'
// files and reports whether it changed any.
func (s *Store) renewHeartbeats(entries map[string]json.RawMessage) bool {
	changed := false
	for id, raw := range entries {
		if envelope.ValidateAgentID(id) != nil {
			continue
		}
		t, ok := s.readHeartbeat(id)
		if !ok {
			continue
		}
		if renewed, ok := setHeartbeat(raw, t); ok {
			entries[id], changed = renewed, true
		}
	}
	return changed
}

// setHeartbeat returns the card entry raw with last_heartbeat t, and true,
// if t is later than the heartbeat it holds. Its other keys keep their
// JSON as read.
func setHeartbeat(raw json.RawMessage, t time.Time) (json.RawMessage, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil || fields == nil {
		return raw, false
	}
	var had envelope.Time
	if old, ok := fields["last_heartbeat"]; ok {
		_ = json.Unmarshal(old, &had) // unreadable: replaced
	}
	if !t.After(had.Time) {
		return raw, false
	}
	enc, err := json.Marshal(envelope.NewTime(t))
	if err != nil {
		return raw, false
	}
	fields["last_heartbeat"] = enc
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	if e.Encode(fields) != nil {
		return raw, false
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), true
}
