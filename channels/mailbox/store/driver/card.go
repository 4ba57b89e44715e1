package driver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// FinishCard puts card in the form every backend stores and nanobot's
// readers expect, now being the time the update began: AgentID is
// agentID; capabilities, allow_from and current_tasks are lists ([] when
// empty); an empty status is busy when current_tasks is not empty and idle
// otherwise (a status other than idle, busy and offline is an error); a
// zero registered_at is now and a zero last_heartbeat is registered_at.
//
// It returns the card's JSON, compact and with <, > and & written as they
// are (as nanobot writes them), and the card as a reader decodes that
// JSON, which is what UpdateCard returns.
func FinishCard(card envelope.Card, agentID string, now time.Time) ([]byte, envelope.Card, error) {
	card.AgentID = agentID
	for _, list := range []*[]string{&card.Capabilities, &card.AllowFrom, &card.CurrentTasks} {
		if *list == nil {
			*list = []string{}
		}
	}
	switch {
	case card.Status == "" && len(card.CurrentTasks) > 0:
		card.Status = envelope.StatusBusy
	case card.Status == "":
		card.Status = envelope.StatusIdle
	case !card.Status.Valid():
		return nil, envelope.Card{}, fmt.Errorf("status %q: want idle, busy, draining or offline", card.Status)
	}
	if card.RegisteredAt.IsZero() {
		card.RegisteredAt = envelope.NewTime(now)
	}
	if card.LastHeartbeat.IsZero() {
		card.LastHeartbeat = card.RegisteredAt
	}
	raw, err := marshalCompact(card)
	if err != nil {
		return nil, envelope.Card{}, fmt.Errorf("encode card: %w", err)
	}
	var written envelope.Card
	if err := json.Unmarshal(raw, &written); err != nil {
		return nil, envelope.Card{}, fmt.Errorf("card does not read back: %w", err)
	}
	return raw, written, nil
}

// marshalCompact encodes v as JSON on one line, without a trailing newline
// and without escaping <, > and & (the registry is not HTML, and nanobot
// writes them as they are).
func marshalCompact(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
