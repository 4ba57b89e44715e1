package natsstore

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

var _ driver.DeadLetterAgents = (*Store)(nil)

// DeadLetterAgents implements driver.DeadLetterAgents: the agents of the
// dead-letter subjects that hold messages in the stream.
func (s *Store) DeadLetterAgents(ctx context.Context) ([]string, error) {
	if err := s.checkOpen(ctx); err != nil {
		return nil, err
	}
	info, err := s.stream.Info(ctx, jetstream.WithSubjectFilter(s.names.prefix+".*.dead"))
	if err != nil {
		return nil, fmt.Errorf("dead letters: %w", err)
	}
	var out []string
	for subject, n := range info.State.Subjects {
		tok, prefixed := strings.CutPrefix(subject, s.names.prefix+".")
		tok, dead := strings.CutSuffix(tok, ".dead")
		if !prefixed || !dead || n == 0 {
			continue
		}
		if agent, ok := agentOfToken(tok); ok {
			out = append(out, agent)
		}
	}
	slices.Sort(out)
	return out, nil
}

// agentOfToken reverses token.
func agentOfToken(tok string) (string, bool) {
	enc, ok := strings.CutPrefix(tok, "=")
	if !ok {
		return tok, tok != ""
	}
	b, err := base64.RawURLEncoding.DecodeString(enc)
	return string(b), err == nil
}
