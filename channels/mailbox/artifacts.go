package mailbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// This file is what the channel does with files: a file part the agent
// sends (a path) is stored in the store's artifact store and sent as its
// uri (attach); a received artifact is fetched into the agent's workspace
// when the agent asks for it (FetchArtifact), never before; the artifact
// store is swept with the messages (sweepArtifacts); and the file
// reservations of the team (Reservations).

// ArtifactsDir is the folder of the agent's workspace that received
// artifacts are fetched into.
const ArtifactsDir = "artifacts"

// artifactSweepEvery is how often one of a store's agents sweeps its
// artifact store (the others skip the sweep meanwhile).
const artifactSweepEvery = time.Hour

// Workspace returns the agent's workspace: relative paths of files it
// attaches are read from it, and artifacts it receives are fetched into
// its ArtifactsDir. Empty when the channel has none (Options.Workspace).
func (c *Channel) Workspace() string { return c.workspace }

// attach turns the file parts of parts that name a local file (a path,
// no bytes) into artifacts: the file is stored in the artifact store and
// the part names it by uri, with its digest, size, name and type (and
// keeps the path, which nanobot reads). A store without an artifact store
// carries a file of up to envelope.MaxInlineBytes inline, and leaves a
// bigger one as the path it was. A path that names no regular file here
// is sent as the path it is, as nanobot sends one (the receiver may see
// a file there that the sender does not).
func (c *Channel) attach(ctx context.Context, parts []envelope.Part) ([]envelope.Part, error) {
	var out []envelope.Part
	for i, p := range parts {
		if p.Type != envelope.PartFile || p.Path == "" || p.IsArtifact() {
			continue
		}
		if out == nil {
			out = append([]envelope.Part(nil), parts...)
		}
		if !c.isFile(p.Path) {
			c.Logger().Warn("file part sent as a bare path: no such file here", "path", p.Path)
			continue
		}
		got, err := c.Attach(ctx, p.Path)
		if err != nil {
			return nil, err
		}
		out[i] = got
	}
	if out == nil {
		return parts, nil
	}
	return out, nil
}

// isFile reports whether path (relative to the workspace unless
// absolute) names a regular file.
func (c *Channel) isFile(path string) bool {
	if !filepath.IsAbs(path) && c.workspace != "" {
		path = filepath.Join(c.workspace, path)
	}
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// Attach stores the file at path (relative to the workspace unless
// absolute) and returns the file part that sends it (see attach).
func (c *Channel) Attach(ctx context.Context, path string) (envelope.Part, error) {
	if !filepath.IsAbs(path) && c.workspace != "" {
		path = filepath.Join(c.workspace, path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return envelope.Part{}, fmt.Errorf("attach %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return envelope.Part{}, fmt.Errorf("attach %s: not a regular file", path)
	}
	be := c.Backend()
	if be == nil {
		return envelope.Part{}, ErrNotRunning
	}
	arts, err := be.Artifacts()
	if err == nil {
		return arts.PutFile(ctx, path)
	}
	abs, _ := filepath.Abs(path)
	if fi.Size() > envelope.MaxInlineBytes {
		return envelope.FilePart(abs), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return envelope.Part{}, fmt.Errorf("attach %s: %w", path, err)
	}
	part := envelope.InlinePart(filepath.Base(path), store.MIMEType(path), data)
	part.Path = abs
	return part, nil
}

// FetchArtifact writes the bytes of a received file part into the
// workspace's ArtifactsDir and returns the file's path: its inline bytes,
// or the artifact its uri names, verified against its digest (a corrupt
// one fails with an error wrapping store.ErrArtifactCorrupt and leaves no
// file). A part that only names a path is returned as that path when the
// file is there.
func (c *Channel) FetchArtifact(ctx context.Context, p envelope.Part) (string, error) {
	if !p.IsArtifact() {
		if _, err := os.Stat(p.Path); p.Path != "" && err == nil {
			return p.Path, nil
		}
	}
	be := c.Backend()
	if be == nil {
		return "", ErrNotRunning
	}
	dir := c.workspace
	if dir == "" {
		return "", errors.New("the agent has no workspace to fetch files into")
	}
	return be.FetchArtifact(ctx, p, filepath.Join(dir, ArtifactsDir))
}

// Reservations returns the file reservations of the agent's store (see
// store.Reservations).
func (c *Channel) Reservations() (*store.Reservations, error) {
	be := c.Backend()
	if be == nil {
		return nil, ErrNotRunning
	}
	return be.Reservations()
}

// sweepArtifacts applies the artifact store's retention (see
// store.Artifacts.Sweep), once an hour among all the store's agents.
func (c *Channel) sweepArtifacts(ctx context.Context) {
	arts, err := c.backend.Artifacts()
	if err != nil {
		return
	}
	rep, err := arts.Sweep(ctx, store.ArtifactRetention{Now: c.clk.Now(), MaxBytes: c.cfg.ArtifactsMaxBytes,
		Every: artifactSweepEvery})
	if err != nil && ctx.Err() == nil {
		c.Logger().Warn("artifacts not swept", "err", err)
		return
	}
	if rep.Removed > 0 {
		c.Logger().Info("artifacts swept", "removed", rep.Removed, "bytes", rep.RemovedBytes, "kept", rep.Kept)
	}
}

// fileLine is how a file part is shown to the agent: nanobot's path as it
// is; an artifact by its name, type, size and uri (or digest, when it is
// inline), with the tool that fetches it.
func fileLine(p envelope.Part) string {
	if !p.IsArtifact() {
		return "file: " + p.Path
	}
	name := p.Name
	if name == "" {
		name = filepath.Base(p.Path)
	}
	where := p.URI
	if where == "" {
		where = "inline, sha256 " + p.SHA256
	}
	return fmt.Sprintf("file: %s (%s, %d bytes, %s; read it with read_artifact)", name, p.MimeType, p.Size, where)
}
