package token

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
)

// MinLen is the fewest characters a token may have.
const MinLen = 16

// maxFile bounds what is read of a token file, in bytes.
const maxFile = 4096

// ErrTooShort is wrapped when a token has fewer than MinLen characters.
var ErrTooShort = fmt.Errorf("a token needs at least %d characters", MinLen)

// Check refuses a token too short to be a secret.
func Check(t string) error {
	if len(t) < MinLen {
		return ErrTooShort
	}
	return nil
}

// Equal reports whether got is want, in a time that tells nothing of
// either (their SHA-256 digests are compared in constant time, so not
// even their lengths leak). An empty want equals nothing.
func Equal(got, want string) bool {
	if want == "" {
		return false
	}
	g, w := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}

// Read returns the token kept in the file at path: its content without
// surrounding white space. The file must be a regular file (not a
// symbolic link), readable by its owner only (mode 0600 or 0400 on Unix),
// and hold a token of at least MinLen characters. A missing file fails
// with an error wrapping fs.ErrNotExist.
func Read(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("token file %s: not a regular file (a symbolic link is not followed)", path)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("token file %s: readable by others (mode %04o): chmod 600 %s", path, fi.Mode().Perm(), path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return "", fmt.Errorf("token file %s: %w", path, err)
	}
	if len(data) > maxFile {
		return "", fmt.Errorf("token file %s: over %d bytes: it should hold one token", path, maxFile)
	}
	t := strings.TrimSpace(string(data))
	if err := Check(t); err != nil {
		return "", fmt.Errorf("token file %s: %w", path, err)
	}
	return t, nil
}

// Bearer returns the token of an Authorization header value of the form
// "Bearer <token>" (the scheme in any case), or "" when it is not one.
func Bearer(header string) string {
	scheme, t, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(t)
}
