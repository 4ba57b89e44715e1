package driver

import "context"

// RecordUpdater is a Backend that can change a record in place: read it,
// compute the new one and write it, with no other update of the record
// (in this process or another) coming in between. Records shared by
// every agent that several change at once (the file reservations) are
// built on it.
type RecordUpdater interface {
	// UpdateRecord replaces record r with what update returns for its
	// current data (nil when there is none), atomically with respect to
	// every other UpdateRecord of r: no update is lost. update may be
	// called more than once (when another writer came first) and must
	// depend only on its argument. When update fails, nothing is written
	// and its error is returned; when it returns nil data, the record is
	// deleted. It returns what was written.
	UpdateRecord(ctx context.Context, r Record, update func(old []byte) ([]byte, error)) ([]byte, error)
}
