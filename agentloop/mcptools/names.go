package mcptools

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// maxToolName is the longest tool name the loop accepts.
const maxToolName = 64

// ToolName returns the name the loop offers tool of server under:
// "mcp_<server>_<tool>", with every character outside letters, digits,
// '_' and '-' replaced by '_', and a name over 64 characters cut and ended
// by a hash of the whole, so that two long names stay distinct.
func ToolName(server, tool string) string {
	name := "mcp_" + clean(server) + "_" + clean(tool)
	if len(name) <= maxToolName {
		return name
	}
	h := fnv.New32a()
	h.Write([]byte(server + "\x00" + tool))
	suffix := fmt.Sprintf("_%08x", h.Sum32())
	return name[:maxToolName-len(suffix)] + suffix
}

func clean(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return '_'
	}, s)
}
