package agentloop

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// maxEscapedKey bounds the escaped part of a history file name; longer
// keys are cut and made unique with a hash.
const maxEscapedKey = 160

// sessionFileName returns the history file name of a session key:
// letters, digits, '-' and '_' kept, every other byte written as %XX, so
// the name has no path separator and no dot of its own and two keys never
// share a file. A very long key is cut and ends in "~" and a hash of the
// whole key (neither '~' nor a lone '%' is produced by escaping).
func sessionFileName(key string) string {
	if key == "" {
		return "%.jsonl"
	}
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	name := b.String()
	if len(name) > maxEscapedKey {
		sum := sha256.Sum256([]byte(key))
		cut := name[:maxEscapedKey]
		if i := strings.LastIndexByte(cut[max(0, len(cut)-2):], '%'); i >= 0 {
			cut = cut[:len(cut)-2+i] // do not split an escape
		}
		name = cut + "~" + hex.EncodeToString(sum[:12])
	}
	return name + ".jsonl"
}
