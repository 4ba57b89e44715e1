package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// This file is how the tools carry files: the files argument of
// send_message, delegate_task, reply and update_task (each file stored in
// the artifact store and sent by its uri), and read_artifact, which
// fetches a received one into the workspace.

// MaxReadText bounds the text read_artifact shows of a text file; a
// bigger one is only saved, and its path given.
const MaxReadText = 32 << 10

// attach returns parts followed by a file part for each of files,
// stored in the artifact store. A file that cannot be attached fails the
// call, before anything is sent.
func (c Caller) attach(ctx context.Context, parts []envelope.Part, files []string) ([]envelope.Part, error) {
	for _, f := range files {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, errors.New("files: an empty path")
		}
		p, err := c.Mailbox.Attach(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("%w; nothing was sent", err)
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// ReadArgs are the arguments of read_artifact.
type ReadArgs struct {
	File      string `json:"file" jsonschema:"the file: its uri (artifact://sha256/...), its sha256 or its name, as the message shows it"`
	MessageID string `json:"message_id,omitempty" jsonschema:"the message that carries it (default: the one you are handling now)"`
}

// Fetched is what read_artifact tells an MCP client.
type Fetched struct {
	Path     string `json:"path"`
	Name     string `json:"name,omitempty"`
	MimeType string `json:"mime_type,omitempty"`
	Size     int64  `json:"size"`
	SHA256   string `json:"sha256,omitempty"`
	// Text is the file's content when it is text of at most MaxReadText
	// bytes.
	Text string `json:"text,omitempty"`
}

// ReadArtifact is the read_artifact tool: it fetches a file another agent
// sent (a file part of the message being handled, or one message_id
// names; or any artifact by its uri) into the workspace's artifacts
// folder, verified against its SHA-256, and says where it is; a small
// text file's content comes with it. Bytes that do not match their digest
// are refused with an error, and no file is left.
var ReadArtifact = Tool[ReadArgs]{
	Name: "read_artifact",
	Description: "Fetch a file another agent sent you (shown as 'file: NAME (...)' in its message) into your " +
		"workspace, checked against its sha256, and get its local path (and its text, when it is a small text file).",
	Use: "fetch a file another agent sent you into your workspace",
	Run: readArtifact,
}

func readArtifact(ctx context.Context, c Caller, in ReadArgs) (Result, error) {
	want := strings.TrimSpace(in.File)
	if want == "" {
		return Result{}, errors.New("file is empty: give the file's uri, sha256 or name")
	}
	part, err := c.filePart(in.MessageID, want)
	if err != nil {
		return Result{}, err
	}
	path, err := c.Mailbox.FetchArtifact(ctx, part)
	if err != nil {
		return Result{}, err
	}
	out := Fetched{Path: path, Name: part.Name, MimeType: part.MimeType, Size: part.Size, SHA256: part.SHA256}
	if fi, err := os.Stat(path); err == nil {
		out.Size = fi.Size()
	}
	text := fmt.Sprintf("saved %s (%s, %d bytes) at %s", cmpOr(part.Name, path), cmpOr(part.MimeType, "unknown type"), out.Size, path)
	if out.Size <= MaxReadText && isText(part.MimeType) {
		if data, err := os.ReadFile(path); err == nil && utf8.Valid(data) {
			out.Text = string(data)
			text += "; its content:\n" + out.Text
		}
	}
	return Result{Text: text, Data: out}, nil
}

// filePart finds the file part want names in the message id names (the
// turn's own when id is empty); a uri of the artifact store names one
// without a message.
func (c Caller) filePart(id, want string) (envelope.Part, error) {
	var mt *meta.Meta
	switch own := c.parent(); {
	case id == "" || own != nil && own.MessageID == id:
		mt = own
	case c.Handed != nil:
		if got, ok := c.Handed(id); ok {
			mt = &got
		}
	}
	var names []string
	if mt != nil {
		for _, p := range mt.Parts {
			if p.Type != envelope.PartFile {
				continue
			}
			if p.URI == want || p.SHA256 == want || p.Name == want || p.Path == want && p.Path != "" {
				return p, nil
			}
			names = append(names, cmpOr(p.Name, p.Path))
		}
	}
	if digest, err := envelope.ParseArtifactURI(want); err == nil {
		return envelope.Part{Type: envelope.PartFile, URI: want, SHA256: digest}, nil
	}
	if err := envelope.CheckDigest(want); err == nil {
		return envelope.Part{Type: envelope.PartFile, URI: envelope.ArtifactURI(want), SHA256: want}, nil
	}
	if len(names) > 0 {
		return envelope.Part{}, fmt.Errorf("no file %q in the message (its files: %s)", want, strings.Join(names, ", "))
	}
	return envelope.Part{}, fmt.Errorf("no file %q: the message carries none; give an artifact uri (artifact://sha256/...)", want)
}

// isText reports whether a MIME type is text a model can read.
func isText(mimeType string) bool {
	return strings.HasPrefix(mimeType, "text/") || strings.HasSuffix(mimeType, "json") ||
		strings.HasSuffix(mimeType, "xml") || strings.HasSuffix(mimeType, "yaml")
}

// cmpOr returns a unless it is empty, else b.
func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
