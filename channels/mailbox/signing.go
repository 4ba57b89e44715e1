package mailbox

import (
	"context"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/keys"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/operator"
)

// This file is who the agent is and whom it believes (docs/security.md,
// "Signed messages"): its signing key, loaded or made at Start and pinned
// as its own, on its card; the signature of every message it sends
// (Post); and the first check of the receive path's admit step, which
// decides whether a message comes from the agent it names before any rule
// that trusts its sender (allowFrom, callbacks, approvals, budgets, task
// updates).

// Signing holds the keys of message signatures; they are keys of the
// channels.mailbox section like the others.
type Signing struct {
	// KeyFile is the agent's key file (an nkeys seed, as NATS nkey seed
	// files hold, or a .creds file), made at first start when missing.
	// Empty: the key of the NATS credentials when they are the agent's,
	// else the agent's own state on the folder
	// (<root>/<agent>/state/signing-key.json), else
	// ~/.nanobot/keys/<agent>.nk.
	KeyFile string `json:"keyFile"`
	// AllowUnsigned lists the agents whose unsigned messages are taken
	// (marked unverified), "*" for everyone. Absent: every agent that has
	// no pinned key (nanobot agents, older switchboards), so that mixed
	// teams keep working.
	AllowUnsigned *[]string `json:"allowUnsigned"`
	// OperatorKey is the operator's public key (an nkeys operator key,
	// "O..."): a key seen for the first time is believed only when the
	// operator vouched for it on the agent's card (switchboard keys
	// sign-card), and a changed key so vouched for is accepted without
	// `switchboard agents trust`.
	OperatorKey string `json:"operatorKey"`
}

// Policy returns what the receiver accepts.
func (s *Signing) Policy() keys.Policy {
	return keys.Policy{AllowUnsigned: s.AllowUnsigned, OperatorKey: s.OperatorKey}
}

// validate checks the keys; key names a key under the section.
func (s *Signing) validate(key func(string) string) []error {
	if err := s.Policy().Validate(strings.TrimSuffix(key(""), ".")); err != nil {
		return []error{err}
	}
	return nil
}

// startSigning loads the agent's key (making it at the first start),
// pins it as the agent's own, and makes the checker of what arrives.
// c.mu is held and c.backend open.
func (c *Channel) startSigning(ctx context.Context) error {
	key, err := keys.Load(ctx, c.backend, c.cfg.AgentID, keys.Source{File: c.cfg.KeyFile, Create: true, Now: c.clk.Now})
	if err != nil {
		return fmt.Errorf("signing key of %q (channels.mailbox.keyFile): %w", c.cfg.AgentID, err)
	}
	policy := c.cfg.Policy()
	own, err := keys.PinOwn(ctx, c.backend, c.cfg.AgentID, key, policy, c.clk.Now())
	if err != nil {
		return fmt.Errorf("pin the key of %q: %w", c.cfg.AgentID, err)
	}
	switch own.Change {
	case keys.Pinned:
		c.Logger().Info("signing key made and pinned", "agent", c.cfg.AgentID, "key", key.Public, "kept", key.Where)
		c.record(ctx, store.Event{Kind: store.EventKey, Agent: c.cfg.AgentID, From: c.cfg.AgentID,
			Reason: "pinned " + key.Public + " by " + keys.ByItself})
	case keys.Rotated:
		c.Logger().Warn("signing key changed; pinned, as the operator key vouches for it", "agent", c.cfg.AgentID, "key", key.Public)
		c.record(ctx, store.Event{Kind: store.EventKey, Agent: c.cfg.AgentID, From: c.cfg.AgentID,
			Reason: "pinned " + key.Public + " by " + keys.ByOperatorKey})
	case keys.ChangeRefused:
		pinned := "an unreadable pin"
		if own.Pin != nil {
			pinned = own.Pin.PublicKey
		}
		c.Logger().Error("this agent's signing key is not the one pinned for it: other agents refuse the messages it signs until the operator runs `switchboard agents trust "+c.cfg.AgentID+"`",
			"agent", c.cfg.AgentID, "key", key.Public, "pinned", pinned, "kept", key.Where)
		c.record(ctx, store.Event{Kind: store.EventKey, Agent: c.cfg.AgentID, From: c.cfg.AgentID,
			Reason: "changed key " + key.Public + " refused: " + pinned + " is pinned"})
	}
	c.key, c.keySignature = key, own.KeySignature
	c.checker = keys.NewChecker(c.backend, policy, keys.CheckerOptions{Self: c.cfg.AgentID, Now: c.clk.Now})
	return nil
}

// sentBy judges a task_update sent in its from's name by another (see
// keys.SentBy) and not signed by its from's key: it is taken, verified,
// when sent_by is this agent (an update this agent sent itself in the
// name of the worker of its task: a deadlock it broke) or the operator,
// and that one's pinned key signed it. Otherwise res, the verdict on its
// from, stands.
func (c *Channel) sentBy(ctx context.Context, m *envelope.Message, res keys.Result) (keys.Result, error) {
	by := keys.SentBy(m)
	if m.Type != envelope.TypeTaskUpdate || m.Signature == nil || (by != c.cfg.AgentID && by != operator.Actor) {
		return res, nil
	}
	as, err := c.checker.CheckAs(ctx, m, by)
	if err != nil || as.Verdict != keys.Verified {
		return res, err
	}
	c.Logger().Info("task update taken: signed by the agent that sent it in its from's name", append(meta.MessageLogAttrs(m), "sent_by", by)...)
	return as, nil
}

// signingKey is the agent's key (nil before Start).
func (c *Channel) signingKey() *keys.Key {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.key
}

// fillKey puts the agent's public key, and the operator's signature of
// it when one is recorded, on card.
func (c *Channel) fillKey(card *envelope.Card) {
	if c.key != nil {
		card.PublicKey, card.KeySignature = c.key.Public, c.keySignature
	}
}

// sign signs msg with the agent's key.
func (c *Channel) sign(msg *envelope.Message) error {
	if err := envelope.Sign(msg, c.key); err != nil {
		return fmt.Errorf("send to %q: %w", msg.To, err)
	}
	return nil
}

// senderRefusal is the first check of the admit step: whether m comes
// from the agent it names (keys.Checker): signed by the key pinned for
// it, or unsigned from an agent that channels.mailbox.allowUnsigned
// allows (then mt is marked Unverified). It returns why m is refused
// ("" when it is not), having logged it; a key pinned, accepted or
// refused on the way is logged and recorded in the audit log. An error
// is a store that cannot be read: m stays claimed.
func (c *Channel) senderRefusal(ctx context.Context, m *envelope.Message, mt *meta.Meta) (string, error) {
	res, err := c.checker.Check(ctx, m)
	if err == nil && res.Verdict != keys.Verified {
		res, err = c.sentBy(ctx, m, res)
	}
	if err != nil {
		return "", fmt.Errorf("check the sender of %s: %w", m.ID, err)
	}
	switch res.Change {
	case keys.Pinned:
		c.Logger().Info("key pinned on first sight", "agent", m.From, "key", res.Key)
		c.record(ctx, store.Event{Kind: store.EventKey, Agent: m.From, From: m.From, MessageID: m.ID,
			Reason: "pinned " + res.Key + " by first sight by " + c.cfg.AgentID})
	case keys.Rotated:
		c.Logger().Warn("changed key accepted: the operator key vouches for it", "agent", m.From, "key", res.Key)
		c.record(ctx, store.Event{Kind: store.EventKey, Agent: m.From, From: m.From, MessageID: m.ID,
			Reason: "pinned " + res.Key + " by " + keys.ByOperatorKey})
	case keys.ChangeRefused:
		c.Logger().Error("agent key changed: its messages are refused until `switchboard agents trust "+m.From+"`",
			append(meta.MessageLogAttrs(m), "key", res.Key)...)
		c.record(ctx, store.Event{Kind: store.EventKey, Agent: m.From, From: m.From, MessageID: m.ID,
			Reason: "changed key " + res.Key + " refused"})
	}
	switch res.Verdict {
	case keys.Refused:
		c.Logger().Warn("mailbox message refused", append(meta.MessageLogAttrs(m), "reason", res.Reason)...)
		return res.Reason, nil
	case keys.Unverified:
		mt.Unverified = true
	}
	return "", nil
}
