package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"
	"strings"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// Artifact describes one stored artifact (see driver.ArtifactInfo).
type Artifact = driver.ArtifactInfo

// Errors of the artifact store.
var (
	// ErrNoArtifact is wrapped when the store does not hold an artifact.
	ErrNoArtifact = driver.ErrNoArtifact
	// ErrArtifactCorrupt is wrapped when bytes are not those their digest
	// names: what a put was given, or what was stored and read back.
	ErrArtifactCorrupt = driver.ErrArtifactCorrupt
)

// Artifacts is a store's artifact store: files that messages name by uri
// (envelope.ArtifactURI) instead of carrying them, each stored once under
// the SHA-256 of its bytes, shared by every agent of the store. Bytes
// stream through it; what is read is verified against its digest (Open).
// Get it with Store.Artifacts.
type Artifacts struct {
	s *Store
	a driver.Artifacts
}

// Artifacts returns the store's artifact store, or an error wrapping
// ErrNotSupported when the backend keeps none.
func (s *Store) Artifacts() (*Artifacts, error) {
	a, ok := s.be.(driver.Artifacts)
	if !ok {
		return nil, notSupported(CanStoreArtifacts)
	}
	return &Artifacts{s: s, a: a}, nil
}

// Put stores the bytes r yields, which must be info.Size bytes whose
// SHA-256 is info.Digest (else nothing is stored and the error wraps
// ErrArtifactCorrupt). An artifact stored already is kept; storing it
// again renews its time, which retention reads.
func (a *Artifacts) Put(ctx context.Context, info Artifact, r io.Reader) (Artifact, error) {
	if err := envelope.CheckDigest(info.Digest); err != nil {
		return Artifact{}, err
	}
	if info.Size < 0 {
		return Artifact{}, fmt.Errorf("store artifact %s: size %d is negative", info.Digest, info.Size)
	}
	return a.a.PutArtifact(ctx, info, r)
}

// Open returns a reader of the artifact digest names, which the caller
// closes, and what the store knows of it. The reader hashes the bytes as
// they are read: at their end, bytes that are not those of digest (changed
// on disk, by a fault or by hand) fail with an error wrapping
// ErrArtifactCorrupt instead of io.EOF, so a caller that reads to the end
// never takes them for the artifact. An artifact the store does not hold
// fails with an error wrapping ErrNoArtifact.
func (a *Artifacts) Open(ctx context.Context, digest string) (io.ReadCloser, Artifact, error) {
	if err := envelope.CheckDigest(digest); err != nil {
		return nil, Artifact{}, err
	}
	rc, info, err := a.a.OpenArtifact(ctx, digest)
	if err != nil {
		return nil, Artifact{}, err
	}
	return &verifier{rc: rc, h: sha256.New(), want: digest, size: info.Size}, info, nil
}

// verifier hashes what it reads and checks it at the end.
type verifier struct {
	rc   io.ReadCloser
	h    hash.Hash
	want string
	size int64
	n    int64
	done error // the error of the end, once reached
}

func (v *verifier) Read(p []byte) (int, error) {
	if v.done != nil {
		return 0, v.done
	}
	n, err := v.rc.Read(p)
	v.h.Write(p[:n])
	v.n += int64(n)
	if errors.Is(err, io.EOF) {
		v.done = io.EOF
		if got := hex.EncodeToString(v.h.Sum(nil)); got != v.want || v.n != v.size {
			v.done = fmt.Errorf("artifact %s is corrupt: %w: its %d stored bytes hash to %s (want %d bytes of sha256 %s); "+
				"it cannot be used: ask its sender to send the file again", v.want, ErrArtifactCorrupt, v.n, got, v.size, v.want)
		}
		return n, v.done
	}
	return n, err
}

func (v *verifier) Close() error { return v.rc.Close() }

// List returns every artifact, by digest.
func (a *Artifacts) List(ctx context.Context) ([]Artifact, error) {
	var out []Artifact
	err := a.a.ListArtifacts(ctx, func(i Artifact) bool {
		out = append(out, i)
		return true
	})
	slices.SortFunc(out, func(x, y Artifact) int { return strings.Compare(x.Digest, y.Digest) })
	return out, err
}

// Copy copies the artifact digest names from a to dst, streaming and
// verified (a bridge carries the artifacts of the messages it mirrors).
// One dst holds already is not read again.
func (a *Artifacts) Copy(ctx context.Context, dst *Artifacts, digest string) (Artifact, error) {
	rc, info, err := a.Open(ctx, digest)
	if err != nil {
		return Artifact{}, err
	}
	defer rc.Close()
	info.Digest = digest
	return dst.Put(ctx, info, rc)
}
