package convert

import (
	"encoding/base64"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// ToA2AParts returns the A2A parts of mailbox parts: text as text, data as
// data, a file as a file:// URL (the path is on the machine of the agent
// that wrote it). Empty text parts are left out.
func ToA2AParts(parts []envelope.Part) []*a2a.Part {
	out := make([]*a2a.Part, 0, len(parts))
	for _, p := range parts {
		switch p.Type {
		case envelope.PartText:
			if p.Text != "" {
				out = append(out, a2a.NewTextPart(p.Text))
			}
		case envelope.PartData:
			out = append(out, a2a.NewDataPart(p.Data))
		case envelope.PartFile:
			if p.Path == "" {
				continue
			}
			u := url.URL{Scheme: "file", Path: filepath.ToSlash(p.Path)}
			part := a2a.NewFileURLPart(a2a.URL(u.String()), "")
			part.Filename = filepath.Base(p.Path)
			out = append(out, part)
		}
	}
	return out
}

// FromA2AParts returns the mailbox parts of A2A parts: text as text,
// structured data as data (a value that is not an object is wrapped as
// {"value": ...}), a URL as data {"url", "filename", "media_type"} (it is
// no path on this machine), raw bytes as data {"base64", "filename",
// "media_type"}.
func FromA2AParts(parts []*a2a.Part) []envelope.Part {
	out := make([]envelope.Part, 0, len(parts))
	for _, p := range parts {
		if p == nil {
			continue
		}
		switch c := p.Content.(type) {
		case a2a.Text:
			out = append(out, envelope.TextPart(string(c)))
		case a2a.Data:
			m, ok := c.Value.(map[string]any)
			if !ok {
				m = map[string]any{"value": c.Value}
			}
			out = append(out, envelope.DataPart(m))
		case a2a.URL:
			out = append(out, envelope.DataPart(described(map[string]any{"url": string(c)}, p)))
		case a2a.Raw:
			out = append(out, envelope.DataPart(described(map[string]any{"base64": base64.StdEncoding.EncodeToString(c)}, p)))
		}
	}
	return out
}

// described adds a part's file name and media type to d.
func described(d map[string]any, p *a2a.Part) map[string]any {
	if p.Filename != "" {
		d["filename"] = p.Filename
	}
	if p.MediaType != "" {
		d["media_type"] = p.MediaType
	}
	return d
}

// Text joins the text parts of parts with newlines.
func Text(parts []*a2a.Part) string {
	var b strings.Builder
	for _, p := range parts {
		if p == nil {
			continue
		}
		if t := p.Text(); t != "" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(t)
		}
	}
	return b.String()
}

// MessageText is the text of an A2A message ("" for nil).
func MessageText(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	return Text(m.Parts)
}

// AgentMessage is an A2A message from the agent saying text, for a
// task's status ("" gives nil).
func AgentMessage(info a2a.TaskInfoProvider, text string) *a2a.Message {
	if text == "" {
		return nil
	}
	return a2a.NewMessageForTask(a2a.MessageRoleAgent, info, a2a.NewTextPart(text))
}
