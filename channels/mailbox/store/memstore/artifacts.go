package memstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

var _ driver.Artifacts = (*Store)(nil)

// artifacts are the artifacts of a hub, by digest. The hub holds them in
// memory whole: a memory store is for tests and one process.
type artifacts struct {
	mu    sync.Mutex
	items map[string]storedArtifact
}

type storedArtifact struct {
	info driver.ArtifactInfo
	data []byte
}

// PutArtifact implements driver.Artifacts.
func (s *Store) PutArtifact(ctx context.Context, info driver.ArtifactInfo, r io.Reader) (driver.ArtifactInfo, error) {
	if err := envelope.CheckDigest(info.Digest); err != nil {
		return driver.ArtifactInfo{}, err
	}
	if err := s.checkOpen(ctx); err != nil {
		return driver.ArtifactInfo{}, err
	}
	a := &s.hub.artifacts
	now := s.opts.Now()
	a.mu.Lock()
	if got, ok := a.items[info.Digest]; ok {
		got.info.Stored = now
		a.items[info.Digest] = got
		a.mu.Unlock()
		return got.info, nil
	}
	a.mu.Unlock()
	data, err := io.ReadAll(r)
	if err != nil {
		return driver.ArtifactInfo{}, fmt.Errorf("store artifact %s: %w", info.Digest, err)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != info.Digest || int64(len(data)) != info.Size {
		return driver.ArtifactInfo{}, fmt.Errorf("store artifact %s: %w: got %d bytes of sha256 %s, want %d bytes",
			info.Digest, driver.ErrArtifactCorrupt, len(data), got, info.Size)
	}
	info.Stored = now
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.items == nil {
		a.items = map[string]storedArtifact{}
	}
	a.items[info.Digest] = storedArtifact{info: info, data: data}
	return info, nil
}

// OpenArtifact implements driver.Artifacts.
func (s *Store) OpenArtifact(ctx context.Context, digest string) (io.ReadCloser, driver.ArtifactInfo, error) {
	if err := s.checkOpen(ctx); err != nil {
		return nil, driver.ArtifactInfo{}, err
	}
	a := &s.hub.artifacts
	a.mu.Lock()
	defer a.mu.Unlock()
	got, ok := a.items[digest]
	if !ok {
		return nil, driver.ArtifactInfo{}, fmt.Errorf("artifact %s: %w", digest, driver.ErrNoArtifact)
	}
	return io.NopCloser(bytes.NewReader(got.data)), got.info, nil
}

// ListArtifacts implements driver.Artifacts.
func (s *Store) ListArtifacts(ctx context.Context, fn func(driver.ArtifactInfo) bool) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	a := &s.hub.artifacts
	a.mu.Lock()
	infos := make([]driver.ArtifactInfo, 0, len(a.items))
	for _, it := range a.items {
		infos = append(infos, it.info)
	}
	a.mu.Unlock()
	for _, info := range infos {
		if !fn(info) {
			break
		}
	}
	return nil
}

// DeleteArtifact implements driver.Artifacts.
func (s *Store) DeleteArtifact(ctx context.Context, digest string, notAfter time.Time) (bool, error) {
	if err := s.checkOpen(ctx); err != nil {
		return false, err
	}
	a := &s.hub.artifacts
	a.mu.Lock()
	defer a.mu.Unlock()
	got, ok := a.items[digest]
	if !ok || got.info.Stored.After(notAfter) {
		return false, nil
	}
	delete(a.items, digest)
	return true, nil
}

// Corrupt replaces the bytes of a stored artifact with data, as a disk
// fault would, for tests of what reads it.
func (h *Hub) Corrupt(digest string, data []byte) bool {
	h.artifacts.mu.Lock()
	defer h.artifacts.mu.Unlock()
	got, ok := h.artifacts.items[digest]
	if ok {
		got.data = data
		h.artifacts.items[digest] = got
	}
	return ok
}
