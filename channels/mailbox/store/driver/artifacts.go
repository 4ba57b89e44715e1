package driver

import (
	"context"
	"errors"
	"io"
	"time"
)

// Errors of Artifacts.
var (
	// ErrNoArtifact is wrapped by OpenArtifact for an artifact the store
	// does not hold (never stored, or swept).
	ErrNoArtifact = errors.New("no such artifact")
	// ErrArtifactCorrupt is wrapped when bytes are not those their digest
	// names: a put whose input hashes to another digest (nothing is
	// stored), or stored bytes that changed (the reader fails at their
	// end, see package store).
	ErrArtifactCorrupt = errors.New("artifact corrupt")
)

// ArtifactInfo describes one stored artifact.
type ArtifactInfo struct {
	// Digest is the SHA-256 of the bytes, 64 lower-case hex digits: the
	// artifact's name (envelope.ArtifactURI makes its uri).
	Digest string `json:"sha256"`
	// Size is the number of bytes.
	Size int64 `json:"size"`
	// Name and MimeType are those the bytes were first stored with: a
	// hint for listings, since each message names its artifact itself.
	Name     string `json:"name,omitempty"`
	MimeType string `json:"mime_type,omitempty"`
	// Stored is when the artifact was stored, or last stored again.
	Stored time.Time `json:"stored"`
}

// Artifacts is a Backend that keeps artifacts: files that messages name
// by uri (envelope.ArtifactURI) instead of carrying them, each stored
// once under the SHA-256 of its bytes. Every agent of the store reads
// what any of them stored (the folder store: under the root, shared by
// the agents of one machine; NATS: an object store, shared across
// machines). Bytes stream through: no call holds a whole artifact in
// memory. The facade (package store) checks digests, verifies what is
// read and keeps the retention.
type Artifacts interface {
	// PutArtifact stores the bytes r yields as the artifact info.Digest,
	// of info.Size bytes. Bytes that hash to another digest or have
	// another size fail with an error wrapping ErrArtifactCorrupt, and
	// nothing is stored. An artifact that is there already is kept (and
	// its Stored time renewed), and r may be left unread. It returns the
	// artifact as stored.
	PutArtifact(ctx context.Context, info ArtifactInfo, r io.Reader) (ArtifactInfo, error)
	// OpenArtifact returns a reader of the artifact's bytes, which the
	// caller closes, and what the store knows of it; an artifact the store
	// does not hold fails with an error wrapping ErrNoArtifact. The bytes
	// are not checked here: the facade hashes them as they are read.
	OpenArtifact(ctx context.Context, digest string) (io.ReadCloser, ArtifactInfo, error)
	// ListArtifacts calls fn for each artifact, in no particular order,
	// until fn returns false or ctx ends.
	ListArtifacts(ctx context.Context, fn func(ArtifactInfo) bool) error
	// DeleteArtifact removes the artifact unless it was stored (or stored
	// again) after notAfter, so that a put racing with a sweep keeps its
	// artifact. It reports whether it removed it; one that is not there is
	// no error.
	DeleteArtifact(ctx context.Context, digest string, notAfter time.Time) (bool, error)
}
