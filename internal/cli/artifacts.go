package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

func (a *app) artifactsCommand() *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "artifacts [--json]",
		Short: "List the artifact store: the files messages carry by uri (read only)",
		Long: `Artifacts lists the files in the mailbox store's artifact store (the
folder's _artifacts/ under the root, or the NATS server's object store):
one line per file, by its SHA-256, with its size, the name and type it was
first stored with, and when it was stored. The uri of each is
artifact://sha256/<digest>, as a message's file part names it; "switchboard
artifact get URI" copies one out.

Files get there when an agent sends a file (send --file, the files of
delegate_task, send_message and reply), and leave with the messages that
name them (see docs/conversations.md#artifacts).`,
		Example: `  switchboard artifacts
  switchboard artifacts --json | jq -r .uri`,
		Args: exactArgs(),
		RunE: a.action(func(cmd *cobra.Command, _ []string) error {
			return a.artifacts(cmd.Context(), jsonOut)
		}),
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON object per artifact")
	return cmd
}

// artifactLine is one artifact as --json prints it.
type artifactLine struct {
	store.Artifact
	URI string `json:"uri"`
}

func (a *app) artifacts(ctx context.Context, jsonOut bool) error {
	m, _, err := a.openMailbox(true)
	if err != nil {
		return err
	}
	defer m.close()
	var list []store.Artifact
	if m.be != nil {
		arts, err := m.be.Artifacts()
		if err != nil {
			return err
		}
		if list, err = arts.List(ctx); err != nil {
			return err
		}
	}
	if jsonOut {
		for _, art := range list {
			if err := writeJSON(a.env.Stdout, artifactLine{Artifact: art, URI: envelope.ArtifactURI(art.Digest)}); err != nil {
				return err
			}
		}
		return nil
	}
	if len(list) == 0 {
		_, err := fmt.Fprintf(a.env.Stdout, "no artifacts %s\n", m.in())
		return err
	}
	now := time.Now()
	w := a.table()
	row(w, "SHA256", "SIZE", "NAME", "TYPE", "STORED")
	var total int64
	for _, art := range list {
		total += art.Size
		row(w, art.Digest[:16], art.Size, orDash(art.Name), orDash(art.MimeType), ago(now, art.Stored))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(a.env.Stdout, "%d artifact(s), %d bytes\n", len(list), total)
	return err
}

func (a *app) artifactGetCommand() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "get URI [--out PATH]",
		Short: "Copy an artifact out of the store, verified against its SHA-256",
		Long: `Get copies the artifact URI names (artifact://sha256/<digest>, or the
digest alone) out of the artifact store into --out (a file, or "-" for
standard output; default: its stored name in the current folder), and
prints the path. The bytes stream through and are checked against the
digest: a corrupt artifact fails with an error and leaves no file (with
--out -, the bytes already written are followed by the error).`,
		Example: `  switchboard artifact get artifact://sha256/9f86d0818... --out report.md
  switchboard artifact get 9f86d0818... --out - | less`,
		Args:              exactArgs("uri"),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.action(func(cmd *cobra.Command, args []string) error {
			return a.artifactGet(cmd.Context(), args[0], out)
		}),
	}
	cmd.Flags().StringVar(&out, "out", "", "where to write it: a file path, or - for standard output (default: its name, in the current folder)")
	return cmd
}

// artifactCommand is "artifact": the command of one artifact (get).
func (a *app) artifactCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "artifact get URI [--out PATH]",
		Short: "Copy one artifact out of the store (see artifacts)",
		Args:  exactArgs(),
		RunE: a.action(func(cmd *cobra.Command, _ []string) error {
			return usagef("name what to do: switchboard artifact get URI")
		}),
	}
	cmd.AddCommand(a.artifactGetCommand())
	return cmd
}

func (a *app) artifactGet(ctx context.Context, uri, out string) error {
	digest, err := envelope.ParseArtifactURI(uri)
	if err != nil {
		if envelope.CheckDigest(uri) != nil {
			return usagef("%v", err)
		}
		digest = uri
	}
	m, _, err := a.openMailbox(true)
	if err != nil {
		return err
	}
	defer m.close()
	if m.be == nil {
		return fmt.Errorf("no mailbox %s", m.in())
	}
	arts, err := m.be.Artifacts()
	if err != nil {
		return err
	}
	rc, info, err := arts.Open(ctx, digest)
	if err != nil {
		return err
	}
	defer rc.Close()
	if out == "-" {
		_, err := copyCtx(ctx, a.env.Stdout, rc)
		return err
	}
	if out == "" {
		out = fileNameOf(info.Name, digest)
	}
	dir := filepath.Dir(out)
	f, err := os.CreateTemp(dir, ".artifact-*")
	if err != nil {
		return err
	}
	_, err = copyCtx(ctx, f, rc)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), out)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	_, err = fmt.Fprintln(a.env.Stdout, out)
	return err
}

// copyCtx copies src to dst until src ends or ctx does.
func copyCtx(ctx context.Context, dst io.Writer, src io.Reader) (int64, error) {
	buf := make([]byte, 256<<10)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		k, rerr := src.Read(buf)
		if k > 0 {
			if _, err := dst.Write(buf[:k]); err != nil {
				return n, err
			}
			n += int64(k)
		}
		if errors.Is(rerr, io.EOF) {
			return n, nil
		}
		if rerr != nil {
			return n, rerr
		}
	}
}

// fileNameOf is the file an artifact is written to by default: the base
// of its stored name, or the first digits of its digest.
func fileNameOf(name, digest string) string {
	base := filepath.Base(name)
	if name == "" || base == "." || base == ".." || base == "/" || base[0] == '.' {
		return digest[:16]
	}
	return base
}
