package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// This file is where artifacts meet files: a file stored and named by a
// file part (PutFile), and a file part's bytes written into an agent's
// workspace (FetchArtifact).

// DefaultMIMEType is the type of a file whose extension says nothing.
const DefaultMIMEType = "application/octet-stream"

// PutFile stores the file at path in the artifact store and returns the
// file part that names it: its uri, digest, size, base name, a MIME type
// from its extension, and its absolute path (which nanobot reads). The
// file is read twice, to hash it and to store it, and never held in
// memory whole; a file that changes meanwhile fails (ErrArtifactCorrupt).
func (a *Artifacts) PutFile(ctx context.Context, path string) (envelope.Part, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return envelope.Part{}, err
	}
	f, err := os.Open(abs)
	if err != nil {
		return envelope.Part{}, fmt.Errorf("attach %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return envelope.Part{}, fmt.Errorf("attach %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return envelope.Part{}, fmt.Errorf("attach %s: not a regular file", path)
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return envelope.Part{}, fmt.Errorf("attach %s: %w", path, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return envelope.Part{}, fmt.Errorf("attach %s: %w", path, err)
	}
	digest := hex.EncodeToString(h.Sum(nil))
	part := envelope.Part{Type: envelope.PartFile, Path: abs, Name: filepath.Base(abs), MimeType: MIMEType(abs),
		Size: n, SHA256: digest, URI: envelope.ArtifactURI(digest)}
	if _, err := a.Put(ctx, Artifact{Digest: digest, Size: n, Name: part.Name, MimeType: part.MimeType}, f); err != nil {
		if errors.Is(err, ErrArtifactCorrupt) {
			return envelope.Part{}, fmt.Errorf("attach %s: the file changed while it was stored; send it again: %w", path, err)
		}
		return envelope.Part{}, fmt.Errorf("attach %s: %w", path, err)
	}
	return part, nil
}

// MIMEType is the MIME type of a file by its extension, without
// parameters; DefaultMIMEType when the extension says nothing.
func MIMEType(path string) string {
	t := mime.TypeByExtension(strings.ToLower(filepath.Ext(path)))
	if t == "" {
		switch strings.ToLower(filepath.Ext(path)) {
		case ".md", ".markdown":
			return "text/markdown"
		case ".txt", ".log":
			return "text/plain"
		}
		return DefaultMIMEType
	}
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	return t
}

// FetchArtifact writes the bytes file part p describes into dir, as
// dir/<first 16 digits of its sha256>/<its name>, and returns the file's
// path: its inline bytes, or the artifact its uri names, streamed from
// the artifact store and verified against its digest (and its size),
// written to a temporary file and renamed into place only once verified.
// A copy already there with the right digest is used as it is. A part
// that names only a path (nanobot's) has no bytes to fetch: the error
// says to read the path.
func (s *Store) FetchArtifact(ctx context.Context, p envelope.Part, dir string) (string, error) {
	if p.Type != envelope.PartFile {
		return "", fmt.Errorf("a %s part is no file", p.Type)
	}
	digest := p.SHA256
	if digest == "" && p.URI != "" {
		d, err := envelope.ParseArtifactURI(p.URI)
		if err != nil {
			return "", fmt.Errorf("fetch %s: %w (only the artifact store's uris can be fetched)", p.URI, err)
		}
		digest = d
	}
	if p.Inline != nil && digest == "" {
		digest = envelope.Digest(p.Inline)
	}
	if digest == "" {
		return "", fmt.Errorf("the file part names only a path on its sender's machine (%q), no artifact to fetch: read that path", p.Path)
	}
	if err := envelope.CheckDigest(digest); err != nil {
		return "", err
	}
	folder := filepath.Join(dir, digest[:16])
	dest := filepath.Join(folder, fileName(p.Name, digest))
	if sameDigest(dest, digest) {
		return dest, nil
	}
	var src io.Reader
	switch {
	case p.Inline != nil:
		src = bytes.NewReader(p.Inline)
		if envelope.Digest(p.Inline) != digest {
			return "", fmt.Errorf("%s: its inline bytes are corrupt: %w", p.Name, ErrArtifactCorrupt)
		}
	default:
		a, err := s.Artifacts()
		if err != nil {
			return "", fmt.Errorf("fetch %s: %w", envelope.ArtifactURI(digest), err)
		}
		rc, info, err := a.Open(ctx, digest)
		if err != nil {
			return "", fmt.Errorf("fetch %s: %w", envelope.ArtifactURI(digest), err)
		}
		defer rc.Close()
		if p.Size != 0 && info.Size != p.Size {
			return "", fmt.Errorf("fetch %s: artifact %s is corrupt: %w: the store holds %d bytes, the message says %d; ask its sender to send the file again",
				envelope.ArtifactURI(digest), digest, ErrArtifactCorrupt, info.Size, p.Size)
		}
		src = rc
	}
	if err := os.MkdirAll(folder, 0o700); err != nil {
		return "", fmt.Errorf("fetch %s: %w", envelope.ArtifactURI(digest), err)
	}
	if err := writeVerified(folder, dest, src); err != nil {
		return "", fmt.Errorf("fetch %s: %w", envelope.ArtifactURI(digest), err)
	}
	return dest, nil
}

// writeVerified copies src into a new file of folder and renames it to
// dest once src ended without error (the verifier's check at the end of
// an artifact's bytes is such an error).
func writeVerified(folder, dest string, src io.Reader) error {
	f, err := os.CreateTemp(folder, ".fetch-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = io.Copy(f, src)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, dest)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// sameDigest reports whether the regular file at path holds the bytes of
// digest.
func sameDigest(path, digest string) bool {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return false
	}
	return hex.EncodeToString(h.Sum(nil)) == digest
}

// fileName is a safe file name for an artifact called name: its base
// name, path separators, control characters and leading dots replaced;
// the first digits of its digest when nothing is left.
func fileName(name, digest string) string {
	name = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || unicode.IsControl(r) {
			return '_'
		}
		return r
	}, name)
	name = strings.TrimLeft(name, ".")
	if len(name) > 200 {
		name = name[len(name)-200:]
	}
	if name == "" {
		return digest[:16]
	}
	return name
}
