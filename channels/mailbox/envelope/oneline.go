package envelope

import (
	"cmp"
	"encoding/json"
	"strings"
)

// oneLine replaces line breaks and tabs in OneLine's text.
var oneLine = strings.NewReplacer("\r\n", " ⏎ ", "\n", " ⏎ ", "\t", " ")

// OneLine renders parts on one line, as the command line's listings and
// the demo show a message: the text parts, then the other parts in their
// order (a data part as JSON, a file part as "file:PATH", or its name or
// uri when it has no path), separated by
// spaces. Line breaks show as "⏎".
func OneLine(parts []Part) string {
	var texts, others []string
	for _, p := range parts {
		switch p.Type {
		case PartText:
			if p.Text != "" {
				texts = append(texts, p.Text)
			}
		case PartData:
			data, _ := json.Marshal(p.Data)
			others = append(others, string(data))
		case PartFile:
			others = append(others, "file:"+cmp.Or(p.Path, p.Name, p.URI))
		}
	}
	line := strings.Join(append(texts, others...), " ")
	if !strings.ContainsAny(line, "\n\t") {
		return line // the common case, without the replacer's copy
	}
	return oneLine.Replace(line)
}
