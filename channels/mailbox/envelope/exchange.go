package envelope

import (
	"encoding/json"
	"math"
)

// MetaExchange is the metadata key of a reply's Exchange: how long the
// two agents of a reply chain have gone without settling a reply owed
// (switchboard's addition; nanobot ignores it). A message without it
// counts as the start of a chain.
const MetaExchange = "exchange"

// Exchange counts, on a reply, the replies in a row of its chain (each
// answering the one before it, so between the same two agents) that
// left the replies owed as they were (see package
// internal/mailbox/stalemate, which keeps the counts and reads them).
type Exchange struct {
	// Bounces are the replies in a row that settled no reply owed: none
	// answered a request without asking anew.
	Bounces int `json:"bounces,omitempty"`
	// AskedBack are the replies in a row that were themselves requests:
	// each answered with a new question, so a reply stayed owed.
	AskedBack int `json:"asked_back,omitempty"`
}

// Zero reports whether e counts nothing (the start of a chain).
func (e Exchange) Zero() bool { return e.Bounces == 0 && e.AskedBack == 0 }

// Exchange returns the exchange counts in m's metadata; zero when there
// are none or they are not numbers of 0 or more.
func (m *Message) Exchange() Exchange {
	v, ok := m.Metadata[MetaExchange]
	if !ok {
		return Exchange{}
	}
	switch e := v.(type) {
	case Exchange:
		return e.clean()
	case map[string]any:
		return Exchange{Bounces: count(e["bounces"]), AskedBack: count(e["asked_back"])}
	}
	return Exchange{}
}

// SetExchange writes e into m's metadata (as the JSON object a decoded
// message has), or removes the key when e is zero.
func (m *Message) SetExchange(e Exchange) {
	if e.Zero() {
		delete(m.Metadata, MetaExchange)
		return
	}
	if m.Metadata == nil {
		m.Metadata = map[string]any{}
	}
	v := map[string]any{}
	if e.Bounces > 0 {
		v["bounces"] = e.Bounces
	}
	if e.AskedBack > 0 {
		v["asked_back"] = e.AskedBack
	}
	m.Metadata[MetaExchange] = v
}

func (e Exchange) clean() Exchange {
	return Exchange{Bounces: min(max(e.Bounces, 0), maxCount), AskedBack: min(max(e.AskedBack, 0), maxCount)}
}

// maxCount bounds a count read from a message: far past any limit, and
// safe to add one to.
const maxCount = 1 << 20

// count reads a JSON number (as decoded, or as set) as a count: 0 for
// anything else, a negative or fractional number.
func count(v any) int {
	var f float64
	switch n := v.(type) {
	case int:
		f = float64(n)
	case float64:
		f = n
	case json.Number:
		var err error
		if f, err = n.Float64(); err != nil {
			return 0
		}
	default:
		return 0
	}
	if f < 0 || f != math.Trunc(f) || math.IsNaN(f) {
		return 0
	}
	return int(min(f, maxCount))
}
