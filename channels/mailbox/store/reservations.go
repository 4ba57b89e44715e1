package store

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// File reservations (seed 003's file locks, as leases): an agent reserves
// a path or a glob of the workspace the team shares for a while, so that
// the others know it works there. An exclusive reservation is refused
// while another agent holds one that overlaps; a shared one only while
// another holds an exclusive one. A reservation ends when its agent
// releases it or when it expires (agents that crash leave nothing held).
// All of them are one record of the store (shelf _reservations), changed
// in place (driver.RecordUpdater): of two agents reserving at once, one
// wins and the other is told who holds what, until when.

// Reservation is one agent's hold on a path or glob.
type Reservation struct {
	// ID names the reservation (for releasing it).
	ID string `json:"id"`
	// Agent holds it.
	Agent string `json:"agent"`
	// Pattern is a path or a glob, with '/' between its parts: *, ? and
	// [...] within a part (as path.Match), ** for any number of parts
	// ("src/**" is everything under src).
	Pattern string `json:"pattern"`
	// Exclusive: no other agent may hold an overlapping reservation.
	Exclusive bool `json:"exclusive"`
	// Reason says why, for the others.
	Reason string `json:"reason,omitempty"`
	// Since and Expires bound it.
	Since   time.Time `json:"since"`
	Expires time.Time `json:"expires"`
}

// Bounds of a reservation's time to live.
const (
	DefaultReservationTTL = time.Hour
	MaxReservationTTL     = 7 * 24 * time.Hour
)

// ErrReserved is wrapped by a reservation refused because another agent
// holds an overlapping one (see ReservedError).
var ErrReserved = errors.New("reserved by another agent")

// ReservedError is a refused reservation: the pattern asked for and the
// reservations of other agents in its way.
type ReservedError struct {
	Pattern string
	Held    []Reservation
}

func (e *ReservedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s is reserved", e.Pattern)
	for i, h := range e.Held {
		if i > 0 {
			b.WriteString(";")
		}
		kind := "shared"
		if h.Exclusive {
			kind = "exclusive"
		}
		fmt.Fprintf(&b, " by %s (%s, %s, until %s", h.Agent, kind, h.Pattern, h.Expires.UTC().Format(time.RFC3339))
		if h.Reason != "" {
			fmt.Fprintf(&b, ": %s", h.Reason)
		}
		b.WriteString(")")
	}
	return b.String()
}

// Unwrap makes a ReservedError an ErrReserved.
func (e *ReservedError) Unwrap() error { return ErrReserved }

// ReserveRequest asks for reservations of Patterns for Agent.
type ReserveRequest struct {
	Agent    string
	Patterns []string
	// TTL is how long they last (default DefaultReservationTTL, at most
	// MaxReservationTTL).
	TTL time.Duration
	// Shared asks for shared reservations (exclusive by default).
	Shared bool
	Reason string
	// Now is the time of the request (the clock of expiry).
	Now time.Time
}

// reservationsRecord is the record that holds every reservation.
var reservationsRecord = driver.Record{Shelf: "_reservations", Key: "table"}

// reservationTable is the record's JSON.
type reservationTable struct {
	Reservations []Reservation `json:"reservations"`
}

// Reservations are the store's file reservations. Get them with
// Store.Reservations.
type Reservations struct {
	s *Store
	u driver.RecordUpdater
}

// Reservations returns the store's file reservations, or an error
// wrapping ErrNotSupported when its backend cannot change a shared record
// in place.
func (s *Store) Reservations() (*Reservations, error) {
	u, ok := s.be.(driver.RecordUpdater)
	if !ok {
		return nil, notSupported(CanUpdateRecords)
	}
	return &Reservations{s: s, u: u}, nil
}

// Reserve reserves req.Patterns for req.Agent, all of them or none: when
// another agent holds a reservation in the way of one (an overlapping one
// when req asks for exclusive ones; an overlapping exclusive one when it
// asks for shared ones), nothing is reserved and the error is a
// *ReservedError naming them. A pattern the agent holds already is
// renewed with req's terms.
func (r *Reservations) Reserve(ctx context.Context, req ReserveRequest) ([]Reservation, error) {
	if err := envelope.ValidateAgentID(req.Agent); err != nil {
		return nil, err
	}
	if len(req.Patterns) == 0 {
		return nil, errors.New("reserve: name at least one path or glob")
	}
	ttl := req.TTL
	if ttl == 0 {
		ttl = DefaultReservationTTL
	}
	if ttl < time.Second || ttl > MaxReservationTTL {
		return nil, fmt.Errorf("reserve: a reservation lasts from 1 second to %s, not %s", MaxReservationTTL, ttl)
	}
	patterns := make([]string, 0, len(req.Patterns))
	for _, p := range req.Patterns {
		clean, err := CleanPattern(p)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(patterns, clean) {
			patterns = append(patterns, clean)
		}
	}
	var granted []Reservation
	err := r.update(ctx, req.Now, func(t *reservationTable) error {
		granted = nil
		for _, p := range patterns {
			var held []Reservation
			for _, h := range t.Reservations {
				if h.Agent != req.Agent && (h.Exclusive || !req.Shared) && Overlap(h.Pattern, p) {
					held = append(held, h)
				}
			}
			if len(held) > 0 {
				return &ReservedError{Pattern: p, Held: held}
			}
		}
		for _, p := range patterns {
			res := Reservation{ID: envelope.NewID(), Agent: req.Agent, Pattern: p, Exclusive: !req.Shared,
				Reason: req.Reason, Since: req.Now.UTC(), Expires: req.Now.Add(ttl).UTC()}
			i := slices.IndexFunc(t.Reservations, func(h Reservation) bool { return h.Agent == req.Agent && h.Pattern == p })
			if i >= 0 {
				res.ID, res.Since = t.Reservations[i].ID, t.Reservations[i].Since
				t.Reservations[i] = res
			} else {
				t.Reservations = append(t.Reservations, res)
			}
			granted = append(granted, res)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return granted, nil
}

// Release ends agent's reservations of patterns, or with none all of
// agent's; a pattern may also be a reservation's id. It returns what it
// ended.
func (r *Reservations) Release(ctx context.Context, agent string, patterns []string, now time.Time) ([]Reservation, error) {
	if err := envelope.ValidateAgentID(agent); err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, p := range patterns {
		want[p] = true
		if clean, err := CleanPattern(p); err == nil {
			want[clean] = true
		}
	}
	var ended []Reservation
	err := r.update(ctx, now, func(t *reservationTable) error {
		ended = nil
		t.Reservations = slices.DeleteFunc(t.Reservations, func(h Reservation) bool {
			end := h.Agent == agent && (len(want) == 0 || want[h.Pattern] || want[h.ID])
			if end {
				ended = append(ended, h)
			}
			return end
		})
		return nil
	})
	return ended, err
}

// List returns the reservations in force at now, by pattern then agent;
// with path set, only those that cover it (or overlap it, for a glob).
func (r *Reservations) List(ctx context.Context, path string, now time.Time) ([]Reservation, error) {
	if path != "" {
		clean, err := CleanPattern(path)
		if err != nil {
			return nil, err
		}
		path = clean
	}
	data, err := r.s.be.LoadRecord(ctx, reservationsRecord)
	if errors.Is(err, driver.ErrNoRecord) {
		return []Reservation{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reservations: %w", err)
	}
	t, err := decodeTable(data)
	if err != nil {
		return nil, err
	}
	out := []Reservation{}
	for _, h := range t.Reservations {
		if h.Expires.After(now) && (path == "" || Overlap(h.Pattern, path)) {
			out = append(out, h)
		}
	}
	slices.SortFunc(out, func(a, b Reservation) int {
		return cmp.Or(strings.Compare(a.Pattern, b.Pattern), strings.Compare(a.Agent, b.Agent))
	})
	return out, nil
}

// update changes the table in place: expired reservations are dropped,
// then change applies; an error of change leaves the record as it was.
func (r *Reservations) update(ctx context.Context, now time.Time, change func(*reservationTable) error) error {
	_, err := r.u.UpdateRecord(ctx, reservationsRecord, func(old []byte) ([]byte, error) {
		t := reservationTable{}
		if old != nil {
			var err error
			if t, err = decodeTable(old); err != nil {
				return nil, err
			}
		}
		t.Reservations = slices.DeleteFunc(t.Reservations, func(h Reservation) bool { return !h.Expires.After(now) })
		if err := change(&t); err != nil {
			return nil, err
		}
		if t.Reservations == nil {
			t.Reservations = []Reservation{}
		}
		return json.Marshal(t)
	})
	return err
}

// decodeTable reads the record of the reservations.
func decodeTable(data []byte) (reservationTable, error) {
	var t reservationTable
	if err := json.Unmarshal(data, &t); err != nil {
		return t, fmt.Errorf("reservations: %w: %v", ErrCorruptState, err)
	}
	return t, nil
}
