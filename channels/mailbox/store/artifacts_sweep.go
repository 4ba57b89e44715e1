package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// ArtifactRetention is what Sweep keeps of the artifact store.
type ArtifactRetention struct {
	// Now is the time of the sweep.
	Now time.Time
	// MinAge keeps an artifact stored (or stored again) this recently
	// whatever refers to it: the message that will name it may not be
	// delivered yet (default DefaultArtifactMinAge).
	MinAge time.Duration
	// MaxBytes bounds the bytes of the store (0: no bound): past it the
	// oldest artifacts go, first those no message refers to any more,
	// then any that no waiting message needs.
	MaxBytes int64
	// Every skips the sweep when any agent of the store swept less than
	// this long ago (0: sweep now), so that the agents of a store share
	// the work instead of each doing it.
	Every time.Duration
}

// DefaultArtifactMinAge is ArtifactRetention.MinAge's default.
const DefaultArtifactMinAge = time.Hour

// ArtifactSweep says what a Sweep did.
type ArtifactSweep struct {
	// Skipped is set when another agent swept within Every.
	Skipped bool `json:"skipped,omitempty"`
	// Kept and KeptBytes are the artifacts left, Removed and RemovedBytes
	// those removed.
	Kept         int   `json:"kept"`
	KeptBytes    int64 `json:"kept_bytes"`
	Removed      int   `json:"removed"`
	RemovedBytes int64 `json:"removed_bytes"`
}

// sweepRecord is the record of the last sweep, shared by the store's agents.
var sweepRecord = driver.Record{Shelf: "_artifacts", Key: "sweep"}

// Sweep applies r: an artifact follows the task and thread it was sent
// in. It is kept while a message that names it is still pending, claimed
// or handled (not yet swept into its task's archive, nor pruned), or
// while the thread of such a message has any message not archived; once
// its messages are archived or gone and their threads are done, it is
// removed (unless younger than MinAge). Then the store is held within
// MaxBytes. Without a backend that can list the messages it holds
// (CanBrowse), only MaxBytes applies.
func (a *Artifacts) Sweep(ctx context.Context, r ArtifactRetention) (ArtifactSweep, error) {
	if r.MinAge <= 0 {
		r.MinAge = DefaultArtifactMinAge
	}
	if r.Every > 0 {
		due, err := a.sweepDue(ctx, r)
		if err != nil {
			return ArtifactSweep{}, err
		}
		if !due {
			return ArtifactSweep{Skipped: true}, nil
		}
	}
	all, err := a.List(ctx)
	if err != nil {
		return ArtifactSweep{}, err
	}
	refs, err := a.s.artifactRefs(ctx)
	if err != nil && !errors.Is(err, ErrNotSupported) && !errors.Is(err, ErrTurnedOff) {
		return ArtifactSweep{}, err
	}
	known := err == nil
	var rep ArtifactSweep
	var keep []Artifact
	cutoff := r.Now.Add(-r.MinAge)
	remove := func(art Artifact) error {
		gone, err := a.a.DeleteArtifact(ctx, art.Digest, cutoff)
		if err != nil {
			return err
		}
		if gone {
			rep.Removed++
			rep.RemovedBytes += art.Size
		} else {
			keep = append(keep, art)
		}
		return nil
	}
	for _, art := range all {
		young := art.Stored.After(cutoff)
		if known && !young && !refs.live(art.Digest) {
			if err := remove(art); err != nil {
				return rep, err
			}
			continue
		}
		keep = append(keep, art)
	}
	// The bound: the oldest first, of those no waiting message needs.
	slices.SortFunc(keep, func(x, y Artifact) int { return x.Stored.Compare(y.Stored) })
	total := int64(0)
	for _, art := range keep {
		total += art.Size
	}
	kept := keep
	keep = nil
	for _, art := range kept {
		if r.MaxBytes > 0 && total > r.MaxBytes && !art.Stored.After(cutoff) && !refs.pending[art.Digest] {
			before := rep.Removed
			if err := remove(art); err != nil {
				return rep, err
			}
			if rep.Removed > before {
				total -= art.Size
			}
			continue
		}
		keep = append(keep, art)
	}
	rep.Kept = len(keep)
	rep.KeptBytes = total
	return rep, nil
}

// sweepDue reports whether no agent swept within r.Every, and if so
// records this sweep, so that of the agents that look at once one sweeps.
// A sweep that is not due writes nothing (a thousand agents starting at
// once read the record, and one of them writes it). Without
// CanUpdateRecords every sweep is due.
func (a *Artifacts) sweepDue(ctx context.Context, r ArtifactRetention) (bool, error) {
	u, ok := a.s.be.(driver.RecordUpdater)
	if !ok {
		return true, nil
	}
	_, err := u.UpdateRecord(ctx, sweepRecord, func(old []byte) ([]byte, error) {
		var last struct {
			At time.Time `json:"at"`
		}
		if old != nil && json.Unmarshal(old, &last) == nil && r.Now.Sub(last.At) < r.Every && !last.At.After(r.Now) {
			return nil, errSweepNotDue
		}
		return json.Marshal(map[string]time.Time{"at": r.Now})
	})
	if errors.Is(err, errSweepNotDue) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("sweep artifacts: %w", err)
	}
	return true, nil
}

// errSweepNotDue ends sweepDue's update without a write.
var errSweepNotDue = errors.New("another agent swept lately")

// artifactRefs is what the stored messages say of the artifacts.
type artifactRefs struct {
	// byDigest: the messages that name each artifact, where they are and
	// in which thread.
	byDigest map[string][]artifactRef
	// liveThreads are the threads with a message not archived.
	liveThreads map[string]bool
	// pending are the artifacts a pending or claimed message names.
	pending map[string]bool
}

type artifactRef struct {
	box    Box
	thread string
}

// live reports whether an artifact is still needed: a message that names
// it is not archived, or its thread goes on.
func (r artifactRefs) live(digest string) bool {
	for _, ref := range r.byDigest[digest] {
		if ref.box != BoxArchive || r.liveThreads[ref.thread] {
			return true
		}
	}
	return false
}

// artifactRefs reads every stored message for the artifacts it names.
func (s *Store) artifactRefs(ctx context.Context) (artifactRefs, error) {
	refs := artifactRefs{byDigest: map[string][]artifactRef{}, liveThreads: map[string]bool{}, pending: map[string]bool{}}
	err := s.Browse(ctx, func(st Stored) bool {
		m := st.Message
		thread := m.ThreadID
		if thread == "" {
			thread = m.ID
		}
		if st.Box != BoxArchive {
			refs.liveThreads[thread] = true
		}
		for _, p := range m.Content.Parts {
			digest := p.SHA256
			if digest == "" {
				digest, _ = envelope.ParseArtifactURI(p.URI)
			}
			if digest == "" || p.Type != envelope.PartFile {
				continue
			}
			refs.byDigest[digest] = append(refs.byDigest[digest], artifactRef{box: st.Box, thread: thread})
			if st.Box == BoxInbox || st.Box == BoxClaimed {
				refs.pending[digest] = true
			}
		}
		return true
	})
	return refs, err
}
