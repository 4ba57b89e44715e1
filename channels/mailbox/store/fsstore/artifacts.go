package fsstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// The artifact store under the root, shared by every agent of the tree
// (nanobot ignores it, and no agent id starts with '_'):
//
//	_artifacts/sha256/<digest>        the bytes, 0600, named by their SHA-256
//	_artifacts/sha256/<digest>.json   what they were first stored as: {"name", "mime_type"}
//	_artifacts/tmp/                   bytes being stored
//	_artifacts/.lock                  taken by a put of known bytes and by a delete
//
// The folders are 0700. Bytes are written to tmp/, hashed as they come,
// synced (unless Options.NoSync), checked against the digest they must
// have, and renamed into place: a reader sees an artifact whole or not at
// all. An artifact's modification time is when it was stored, or stored
// again (Options.Now), which retention compares.
const (
	artifactsDir   = "_artifacts"
	artifactsBytes = "sha256"
	artifactsTmp   = "tmp"
	artifactsLock  = ".lock"
)

var _ driver.Artifacts = (*Store)(nil)

// artifactPaths returns the folders of the artifact store, creating them
// (0700, refused when a symlink or open to others) unless readOnly.
func (s *Store) artifactPaths(readOnly bool) (base, bytesDir string, err error) {
	if err := s.checkOpen(); err != nil {
		return "", "", err
	}
	base = filepath.Join(s.root, artifactsDir)
	bytesDir = filepath.Join(base, artifactsBytes)
	if readOnly {
		return base, bytesDir, nil
	}
	for _, dir := range []string{base, bytesDir, filepath.Join(base, artifactsTmp)} {
		if err := ensureDir(dir); err != nil {
			return "", "", fmt.Errorf("artifact store: %w", err)
		}
	}
	return base, bytesDir, nil
}

// PutArtifact implements driver.Artifacts.
func (s *Store) PutArtifact(ctx context.Context, info driver.ArtifactInfo, r io.Reader) (driver.ArtifactInfo, error) {
	if err := envelope.CheckDigest(info.Digest); err != nil {
		return driver.ArtifactInfo{}, err
	}
	base, bytesDir, err := s.artifactPaths(false)
	if err != nil {
		return driver.ArtifactInfo{}, err
	}
	removeStaleStaging(filepath.Join(base, artifactsTmp))
	final := filepath.Join(bytesDir, info.Digest)
	if got, ok, err := s.touchArtifact(ctx, base, final, info); ok || err != nil {
		return got, err
	}
	tmp, err := s.stageArtifact(ctx, filepath.Join(base, artifactsTmp), info, r)
	if err != nil {
		return driver.ArtifactInfo{}, err
	}
	defer os.Remove(tmp)
	unlock, err := lockFile(ctx, filepath.Join(base, artifactsLock))
	if err != nil {
		return driver.ArtifactInfo{}, err
	}
	defer unlock()
	now := s.opts.Now()
	if err := os.Chtimes(tmp, now, now); err != nil {
		return driver.ArtifactInfo{}, fmt.Errorf("store artifact %s: %w", info.Digest, err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return driver.ArtifactInfo{}, fmt.Errorf("store artifact %s: %w", info.Digest, err)
	}
	s.describeArtifact(final, info)
	if !s.opts.NoSync {
		if err := syncDir(bytesDir); err != nil {
			return driver.ArtifactInfo{}, fmt.Errorf("store artifact %s: %w", info.Digest, err)
		}
	}
	info.Stored = now
	return info, nil
}

// touchArtifact renews the time of an artifact that is stored already,
// under the store's lock, so that a sweep deciding to delete it meanwhile
// leaves it; ok is false when it is not there (or is not whole: another
// size, not a regular file), and then it is stored anew.
func (s *Store) touchArtifact(ctx context.Context, base, final string, info driver.ArtifactInfo) (driver.ArtifactInfo, bool, error) {
	unlock, err := lockFile(ctx, filepath.Join(base, artifactsLock))
	if err != nil {
		return driver.ArtifactInfo{}, false, err
	}
	defer unlock()
	fi, err := os.Lstat(final)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != info.Size {
		return driver.ArtifactInfo{}, false, nil
	}
	now := s.opts.Now()
	if err := os.Chtimes(final, now, now); err != nil {
		return driver.ArtifactInfo{}, false, fmt.Errorf("store artifact %s: %w", info.Digest, err)
	}
	got := s.artifactInfo(final, fi)
	got.Stored = now
	return got, true, nil
}

// stageArtifact copies r into a new file of dir, hashing it, and returns
// its path once its digest and size are those of info (and it is synced,
// unless Options.NoSync). Other bytes fail with ErrArtifactCorrupt.
func (s *Store) stageArtifact(ctx context.Context, dir string, info driver.ArtifactInfo, r io.Reader) (string, error) {
	f, err := os.CreateTemp(dir, "put-*")
	if err != nil {
		return "", fmt.Errorf("store artifact %s: %w", info.Digest, err)
	}
	tmp := f.Name()
	fail := func(err error) (string, error) {
		f.Close()
		os.Remove(tmp)
		return "", err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), ctxReader{ctx, r})
	if err != nil {
		return fail(fmt.Errorf("store artifact %s: %w", info.Digest, err))
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != info.Digest || n != info.Size {
		return fail(fmt.Errorf("store artifact %s: %w: got %d bytes of sha256 %s, want %d bytes", info.Digest,
			driver.ErrArtifactCorrupt, n, got, info.Size))
	}
	if !s.opts.NoSync {
		if err := f.Sync(); err != nil {
			return fail(fmt.Errorf("store artifact %s: %w", info.Digest, err))
		}
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("store artifact %s: %w", info.Digest, err)
	}
	return tmp, nil
}

// artifactNote is the file beside an artifact's bytes that says what they
// were first stored as.
type artifactNote struct {
	Name     string `json:"name,omitempty"`
	MimeType string `json:"mime_type,omitempty"`
}

// describeArtifact writes the note of the artifact at final, unless one is
// there; a note that cannot be written only costs the listings a name.
func (s *Store) describeArtifact(final string, info driver.ArtifactInfo) {
	data, err := json.Marshal(artifactNote{Name: info.Name, MimeType: info.MimeType})
	if err == nil {
		err = s.createExclusive(final+".json", data)
	}
	if err != nil && !errors.Is(err, fs.ErrExist) {
		s.opts.Logger.Warn("artifact note not written", "artifact", info.Digest, "err", err)
	}
}

// artifactInfo is what the store knows of the artifact at path, whose
// Lstat is fi: its digest (the name), size, time, and its note's name and
// type when there is one.
func (s *Store) artifactInfo(path string, fi fs.FileInfo) driver.ArtifactInfo {
	info := driver.ArtifactInfo{Digest: filepath.Base(path), Size: fi.Size(), Stored: fi.ModTime()}
	if data, err := readCappedFile(path+".json", 64<<10); err == nil {
		var note artifactNote
		if json.Unmarshal(data, &note) == nil {
			info.Name, info.MimeType = note.Name, note.MimeType
		}
	}
	return info
}

// readCappedFile reads the regular file at path (never through a
// symlink), failing when it holds more than limit bytes.
func readCappedFile(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAllCapped(f, limit)
}

// OpenArtifact implements driver.Artifacts: the file of the bytes, which
// must be a regular file (not a symlink, not a FIFO).
func (s *Store) OpenArtifact(_ context.Context, digest string) (io.ReadCloser, driver.ArtifactInfo, error) {
	if err := envelope.CheckDigest(digest); err != nil {
		return nil, driver.ArtifactInfo{}, err
	}
	_, bytesDir, err := s.artifactPaths(true)
	if err != nil {
		return nil, driver.ArtifactInfo{}, err
	}
	path := filepath.Join(bytesDir, digest)
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, driver.ArtifactInfo{}, fmt.Errorf("artifact %s: %w", digest, driver.ErrNoArtifact)
	}
	if err != nil {
		return nil, driver.ArtifactInfo{}, fmt.Errorf("open artifact %s: %w", digest, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, driver.ArtifactInfo{}, fmt.Errorf("open artifact %s: %s is not a regular file (%s)", digest, path, typeName(fi.Mode()))
	}
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, driver.ArtifactInfo{}, fmt.Errorf("open artifact %s: %w", digest, err)
	}
	return f, s.artifactInfo(path, fi), nil
}

// ListArtifacts implements driver.Artifacts: the files of _artifacts/sha256
// named by a digest.
func (s *Store) ListArtifacts(ctx context.Context, fn func(driver.ArtifactInfo) bool) error {
	_, bytesDir, err := s.artifactPaths(true)
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(bytesDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list artifacts: %w", err)
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		if envelope.CheckDigest(e.Name()) != nil {
			continue // a note, or not ours
		}
		path := filepath.Join(bytesDir, e.Name())
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted meanwhile, or not an artifact
		}
		if !fn(s.artifactInfo(path, fi)) {
			return nil
		}
	}
	return nil
}

// DeleteArtifact implements driver.Artifacts, under the store's lock.
func (s *Store) DeleteArtifact(ctx context.Context, digest string, notAfter time.Time) (bool, error) {
	if err := envelope.CheckDigest(digest); err != nil {
		return false, err
	}
	base, bytesDir, err := s.artifactPaths(true)
	if err != nil {
		return false, err
	}
	path := filepath.Join(bytesDir, digest)
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	unlock, err := lockFile(ctx, filepath.Join(base, artifactsLock))
	if err != nil {
		return false, err
	}
	defer unlock()
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("delete artifact %s: %w", digest, err)
	}
	if fi.ModTime().After(notAfter) {
		return false, nil // stored again meanwhile
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("delete artifact %s: %w", digest, err)
	}
	os.Remove(path + ".json")
	return true, nil
}

// ctxReader is a reader that fails once ctx ends, so that a long copy
// stops when its caller gives up.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// staleStaging is how long a file of tmp/ may go unwritten before a put
// takes it for the leftover of a put that was killed, and removes it.
const staleStaging = time.Hour

// removeStaleStaging removes the files of dir (tmp/) not written for
// staleStaging: what puts killed midway (SIGKILL, a crash) left. A put
// under way writes its file as the bytes come, so it is never that old.
func removeStaleStaging(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	cutoff := time.Now().Add(-staleStaging)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && fi.ModTime().Before(cutoff) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
