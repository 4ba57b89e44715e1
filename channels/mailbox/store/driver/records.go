package driver

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// Records keeps small records that must outlive a process: an agent's own
// state (the tasks it delegated, the replies it awaits, its breakers) and
// what the whole store shares (the approvals agents wait for). The facade
// builds those features on these five calls, once for every backend.
type Records interface {
	// LoadRecord returns record r, or an error wrapping ErrNoRecord when
	// there is none.
	LoadRecord(ctx context.Context, r Record) ([]byte, error)
	// SaveRecord stores data as record r, replacing the one there
	// atomically: a reader sees the old record or the new one, whole.
	SaveRecord(ctx context.Context, r Record, data []byte) error
	// CreateRecord stores data as record r unless there is one, which
	// fails with an error wrapping ErrRecordExists: of several processes
	// creating r at once, exactly one succeeds, and readers see its data
	// whole.
	CreateRecord(ctx context.Context, r Record, data []byte) error
	// DeleteRecord removes record r; one that is not there is no error.
	DeleteRecord(ctx context.Context, r Record) error
	// ListRecords returns the keys of the records on shelf, sorted. A
	// shelf without records has none.
	ListRecords(ctx context.Context, shelf string) ([]string, error)
}

// Record names one record: a key on a shelf.
type Record struct {
	// Shelf is an agent id (that agent's own records) or one of the
	// store's shelves (a name starting with '_', which no agent id can:
	// ShelfApprovals, ShelfDecisions).
	Shelf string
	// Key is 1 to 64 letters, digits, '-' and '_', starting with a letter
	// or a digit: safe as a file name, a KV key token and a map key.
	Key string
}

// The store's own shelves. A backend keeps them where its format says
// (docs/format.md, docs/backends.md): the folder store under
// <root>/_approvals/, NATS as the keys <shelf>.<key> of its state bucket.
const (
	// ShelfApprovals holds the approvals agents wait for, by id: the
	// question, written once by the agent that asks.
	ShelfApprovals = "_approval"
	// ShelfDecisions holds the decisions of approvals, by id: created by
	// whoever decides first.
	ShelfDecisions = "_decision"
)

// Errors of Records.
var (
	// ErrNoRecord is wrapped by LoadRecord when there is no such record.
	ErrNoRecord = errors.New("no such record")
	// ErrRecordExists is wrapped by CreateRecord when the record is there
	// already.
	ErrRecordExists = errors.New("the record exists already")
	// ErrNoCredentialKey is wrapped by CredentialKeys.CredentialSeed when
	// the backend connects with no key of the agent asked about.
	ErrNoCredentialKey = errors.New("no key of the agent among the store's credentials")
)

// String returns "shelf/key", for errors.
func (r Record) String() string { return r.Shelf + "/" + r.Key }

// IsStoreShelf reports whether shelf is one of the store's own shelves
// (its name starts with '_') rather than an agent's.
func IsStoreShelf(shelf string) bool { return len(shelf) > 1 && shelf[0] == '_' }

// CheckShelf refuses a shelf that is neither a valid agent id nor a store
// shelf ('_' and lower-case letters).
func CheckShelf(shelf string) error {
	if IsStoreShelf(shelf) {
		for _, c := range shelf[1:] {
			if c < 'a' || c > 'z' {
				return fmt.Errorf("record shelf %q: want an agent id or '_' and lower-case letters", shelf)
			}
		}
		return nil
	}
	if err := envelope.ValidateAgentID(shelf); err != nil {
		return fmt.Errorf("record shelf: %w", err)
	}
	return nil
}

// CheckRecord validates r's shelf and key (see Record). Every backend
// checks them before it builds a path or a key.
func CheckRecord(r Record) error {
	if err := CheckShelf(r.Shelf); err != nil {
		return err
	}
	return CheckRecordKey(r.Key)
}

// CheckRecordKey validates the key of a record (see Record.Key).
func CheckRecordKey(key string) error {
	if key == "" || len(key) > 64 {
		return fmt.Errorf("record key %q: want 1 to 64 letters, digits, '-' or '_'", key)
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '-' && c != '_') {
			return fmt.Errorf("record key %q: want letters, digits, '-' or '_', starting with a letter or a digit", key)
		}
	}
	return nil
}
