package envelope

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// ArtifactScheme starts the uri of an artifact in a mailbox store's
// artifact store: artifact://sha256/<64 hex digits>. The uri names the
// bytes, not a place, so it means the same in every store (a folder, a
// NATS server): the bridge copies the bytes and leaves the uri as it is.
const ArtifactScheme = "artifact://sha256/"

// ErrBadDigest is wrapped by the errors about a digest or an artifact
// uri that is not well formed.
var ErrBadDigest = errors.New("invalid sha256 digest")

// ArtifactURI returns the uri of the artifact whose SHA-256 digest is
// digest (64 lower-case hex digits).
func ArtifactURI(digest string) string { return ArtifactScheme + digest }

// ParseArtifactURI returns the digest an artifact uri names, or an error
// wrapping ErrBadDigest for a uri that names none (another scheme, a
// digest that is not 64 lower-case hex digits).
func ParseArtifactURI(uri string) (string, error) {
	digest, ok := strings.CutPrefix(uri, ArtifactScheme)
	if !ok {
		return "", fmt.Errorf("%w: uri %q is no artifact uri (want %s<64 hex digits>)", ErrBadDigest, clipString(uri, 80), ArtifactScheme)
	}
	if err := CheckDigest(digest); err != nil {
		return "", err
	}
	return digest, nil
}

// CheckDigest checks that digest is a SHA-256 digest as artifacts are
// named: 64 lower-case hex digits.
func CheckDigest(digest string) error {
	if len(digest) != sha256.Size*2 {
		return fmt.Errorf("%w %q: want 64 lower-case hex digits", ErrBadDigest, clipString(digest, 80))
	}
	for i := 0; i < len(digest); i++ {
		if c := digest[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return fmt.Errorf("%w %q: want 64 lower-case hex digits", ErrBadDigest, digest)
		}
	}
	return nil
}

// Digest returns the SHA-256 digest of data, as artifacts are named.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// InlinePart returns a file part that carries data inline, with its name,
// type, size and digest; data must be at most MaxInlineBytes.
func InlinePart(name, mimeType string, data []byte) Part {
	if data == nil {
		data = []byte{}
	}
	return Part{Type: PartFile, Name: name, MimeType: mimeType, Size: int64(len(data)), SHA256: Digest(data), Inline: data}
}

// checkFilePart checks what a part says of its bytes: a digest of 64
// hex digits, a size not negative, inline data only on a file part, at
// most MaxInlineBytes, of the size and digest given, and not beside a
// uri; an artifact uri agrees with the digest.
func checkFilePart(p Part) error {
	if p.SHA256 != "" {
		if err := CheckDigest(p.SHA256); err != nil {
			return err
		}
	}
	if p.Size < 0 {
		return errors.New("size must not be negative")
	}
	if p.Inline != nil {
		switch {
		case p.Type != PartFile:
			return fmt.Errorf("inline data on a %s part: only a file part carries bytes", p.Type)
		case len(p.Inline) > MaxInlineBytes:
			return fmt.Errorf("inline data of %d bytes: at most %d travel in a message, send bigger files through the artifact store", len(p.Inline), MaxInlineBytes)
		case p.URI != "":
			return errors.New("inline data and a uri: want one of them")
		case p.Size != 0 && p.Size != int64(len(p.Inline)):
			return fmt.Errorf("inline data of %d bytes, but size says %d", len(p.Inline), p.Size)
		case p.SHA256 != "" && Digest(p.Inline) != p.SHA256:
			return fmt.Errorf("inline data does not match its sha256 %s (it is %s): corrupted on the way", p.SHA256, Digest(p.Inline))
		}
	}
	if digest, err := ParseArtifactURI(p.URI); err == nil && p.SHA256 != "" && digest != p.SHA256 {
		return fmt.Errorf("uri %s names other bytes than its sha256 %s", p.URI, p.SHA256)
	}
	return nil
}

// clipString cuts s to at most n bytes, for errors.
func clipString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
