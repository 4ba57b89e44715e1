package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// copyArtifacts copies into the destination's artifact store the
// artifacts m's file parts name by uri (artifact://sha256/...), streaming
// and verified by their digest, so that the receiver fetches them there.
// It returns why m cannot be forwarded (an artifact the source does not
// hold or holds corrupt, a store without artifacts, a copy that failed
// maxRefusals times while both stores answer), or an error when ctx ended
// while the source or destination could not be reached (retried until
// then). Parts with a bare path or inline data travel as they are:
// inline data is in the message, and a path names a file of the sender's
// machine.
func (f *forwarder) copyArtifacts(ctx context.Context, m *envelope.Message, log *slog.Logger) (string, error) {
	var digests []string
	for _, p := range m.Content.Parts {
		if p.Type != envelope.PartFile || p.URI == "" {
			continue
		}
		digest, err := envelope.ParseArtifactURI(p.URI)
		if err != nil {
			continue // another scheme (https://...): the receiver fetches it itself
		}
		digests = append(digests, digest)
	}
	if len(digests) == 0 {
		return "", nil
	}
	from, to := f.b.side(f.r.from), f.b.side(f.r.to)
	src, err := from.Store.Artifacts()
	if err != nil {
		return fmt.Sprintf("bridge %s: the message names an artifact and the %s store keeps none: %v", f.b.cfg.ID, from.Name, err), nil
	}
	dst, err := to.Store.Artifacts()
	if err != nil {
		return fmt.Sprintf("bridge %s: the message names an artifact and the %s store keeps none: %v", f.b.cfg.ID, to.Name, err), nil
	}
	for _, digest := range digests {
		for refused := 0; ; {
			info, err := src.Copy(ctx, dst, digest)
			if err == nil {
				f.b.count(func(c *counts) { c.copied++ })
				log.Debug("artifact copied", "sha256", digest, "size", info.Size)
				break
			}
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			if errors.Is(err, store.ErrNoArtifact) || errors.Is(err, store.ErrArtifactCorrupt) || errors.Is(err, envelope.ErrBadDigest) {
				return fmt.Sprintf("bridge %s: artifact %s not copied from the %s store to the %s store: %v",
					f.b.cfg.ID, envelope.ArtifactURI(digest), from.Name, to.Name, err), nil
			}
			if from.Store.Ping(ctx) == nil && to.Store.Ping(ctx) == nil {
				if refused++; refused >= maxRefusals {
					return fmt.Sprintf("bridge %s: artifact %s not copied from the %s store to the %s store (%d tries): %v",
						f.b.cfg.ID, envelope.ArtifactURI(digest), from.Name, to.Name, refused, err), nil
				}
			}
			log.Warn("artifact not copied; trying again", "sha256", digest, "err", err)
			if !wait(ctx, f.b.cfg.Interval) {
				return "", ctx.Err()
			}
		}
	}
	return "", nil
}
