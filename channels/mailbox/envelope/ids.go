package envelope

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/google/uuid"
)

// MaxAgentIDLen is the longest agent id accepted, in bytes.
const MaxAgentIDLen = 64

// ErrBadAgentID is wrapped by every agent id validation error.
var ErrBadAgentID = errors.New("invalid agent id")

// ValidateAgentID checks that id is safe to use as a folder name in the
// mailbox tree: 1 to 64 bytes of letters, digits, '-', '_' and '.', not
// starting with '.' or '_' (names the tree reserves for its own files), with
// no path separators or control characters, and letters of one script
// (see mixedScripts).
func ValidateAgentID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("%w: empty", ErrBadAgentID)
	case len(id) > MaxAgentIDLen:
		return fmt.Errorf("%w %.20q...: longer than %d bytes", ErrBadAgentID, id, MaxAgentIDLen)
	case id[0] == '.' || id[0] == '_':
		return fmt.Errorf("%w %q: must not start with %q", ErrBadAgentID, id, id[:1])
	}
	for _, r := range id {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.' {
			continue
		}
		return fmt.Errorf("%w %q: character %q not allowed (use letters, digits, '-', '_', '.')",
			ErrBadAgentID, id, r)
	}
	if x, y := mixedScripts(id); x != "" {
		return fmt.Errorf("%w %q: mixes %s and %s letters, as a look-alike of another id would; use the letters of one script",
			ErrBadAgentID, id, x, y)
	}
	return nil
}

// NewID returns a fresh message id: a UUIDv7, so ids sort by creation time.
func NewID() string { return uuid.Must(uuid.NewV7()).String() }

// IsOwnID reports whether id has the form NewID produces. nanobot's ids
// ("msg_<ts>_<from>") are not unique, so only ids of this form can be used
// to recognise a duplicate delivery.
func IsOwnID(id string) bool {
	u, err := uuid.Parse(id)
	return err == nil && u.Version() == 7 && len(id) == 36
}

// FileName returns the inbox file name for m:
// "<unix-ms>_<from>_<unique>.msg.json". The unique part comes from the id,
// so delivering the same message twice yields the same name, and two
// messages sent in the same millisecond get different names. For an id of
// NewID's form the whole id is used: ids grow with every call, so messages
// one sender stamps in the same millisecond sort in the order it made them
// (the id's random tail alone would not, when the id was made in a later
// millisecond than the timestamp).
func FileName(m *Message) string {
	unique := strings.ReplaceAll(m.ID, "-", "")
	if len(unique) > 20 && !IsOwnID(m.ID) {
		unique = unique[len(unique)-20:]
	}
	unique = sanitize(unique)
	return fmt.Sprintf("%013d_%s_%s%s", m.Timestamp.UnixMilli(), m.From, unique, MessageSuffix)
}

// MessageSuffix ends every message file name.
const MessageSuffix = ".msg.json"

// sanitize keeps only characters that are safe in a file name.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-') {
			return r
		}
		return 'x'
	}, s)
}
