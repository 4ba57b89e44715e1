package keys

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nkeys"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// Policy is what a receiver accepts (channels.mailbox.allowUnsigned and
// operatorKey).
type Policy struct {
	// AllowUnsigned lists the agents whose unsigned messages are taken
	// ("*": anyone's). Nil: every agent that has no pinned key.
	AllowUnsigned *[]string
	// OperatorKey, when set, is the operator's public key ("O..."): a key
	// seen for the first time is pinned only when the operator vouched
	// for it (the card's key_signature), and a changed key it vouched for
	// is accepted without `agents trust`.
	OperatorKey string
}

// Validate checks the policy's values; errors name the keys under prefix.
func (p Policy) Validate(prefix string) error {
	var errs []error
	if p.OperatorKey != "" {
		if _, err := OperatorKey(p.OperatorKey); err != nil {
			errs = append(errs, fmt.Errorf("%s.operatorKey: %w", prefix, err))
		}
	}
	if p.AllowUnsigned != nil {
		for _, id := range *p.AllowUnsigned {
			if id == "*" {
				continue
			}
			if err := envelope.ValidateAgentID(id); err != nil {
				errs = append(errs, fmt.Errorf("%s.allowUnsigned: %w (or \"*\" for everyone)", prefix, err))
			}
		}
	}
	return errors.Join(errs...)
}

// allowsUnsigned reports whether an unsigned message from agent is taken:
// agent is listed (or "*" is), or, with no list, it has no pinned key.
func (p Policy) allowsUnsigned(agent string, pinned bool) bool {
	if p.AllowUnsigned == nil {
		return !pinned
	}
	return slices.Contains(*p.AllowUnsigned, "*") || slices.Contains(*p.AllowUnsigned, agent)
}

// Verdict is what a Checker decides about a message's sender.
type Verdict uint8

// The verdicts.
const (
	// Verified: signed by the key pinned for its sender.
	Verified Verdict = iota
	// Unverified: taken, but nothing shows that its sender wrote it
	// (unsigned, from an agent the policy allows to send unsigned); it is
	// marked unverified wherever it is shown.
	Unverified
	// Refused: set aside with the reason, before any rule that trusts
	// its sender.
	Refused
)

// String is the verdict as the views print it.
func (v Verdict) String() string {
	switch v {
	case Verified:
		return "verified"
	case Unverified:
		return "unverified"
	}
	return "refused"
}

// Change is what a check did to, or found about, a sender's pinned key.
type Change uint8

// The changes a check reports (for the log and the audit log).
const (
	NoChange Change = iota
	// Pinned: the sender's key was pinned on first sight.
	Pinned
	// Rotated: a changed key the operator key vouched for was pinned.
	Rotated
	// ChangeRefused: the message was signed with a key that is not the
	// pinned one.
	ChangeRefused
)

// Result is a Checker's verdict on one message.
type Result struct {
	Verdict Verdict
	// Reason says why a message is unverified or refused.
	Reason string
	// Change and Key report what happened to the sender's key (Key is the
	// key concerned: pinned, accepted, or refused).
	Change Change
	Key    string
}

// Checker decides whether a message comes from the agent it names:
// signed by the key pinned for that agent (verified), unsigned from an
// agent the policy allows (unverified), or neither (refused). Pins are
// read from the store and kept for a while (cacheFor); a signature made
// with another key reads them again, so a key trusted meanwhile is seen
// at once. A Checker is safe for concurrent use.
type Checker struct {
	st     Store
	policy Policy
	op     nkeys.KeyPair
	self   string
	write  bool
	now    func() time.Time

	mu   sync.Mutex
	pins map[string]cachedPin
}

// cacheFor is how long a pin read (or the absence of one) is trusted
// before it is read again.
const cacheFor = 10 * time.Second

type cachedPin struct {
	pin *Pin // nil: none pinned
	at  time.Time
}

// CheckerOptions configure NewChecker.
type CheckerOptions struct {
	// Self is the agent that checks (named in the pins it makes).
	Self string
	// ReadOnly makes a checker for the views: it pins nothing, and judges
	// a key never pinned by the card's key.
	ReadOnly bool
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// NewChecker returns a checker of messages under policy, which must be
// valid (Policy.Validate).
func NewChecker(st Store, policy Policy, o CheckerOptions) *Checker {
	c := &Checker{st: st, policy: policy, self: o.Self, write: !o.ReadOnly, now: o.Now, pins: map[string]cachedPin{}}
	if c.now == nil {
		c.now = time.Now
	}
	if policy.OperatorKey != "" {
		c.op, _ = OperatorKey(policy.OperatorKey)
	}
	return c
}

// Check judges m's sender (see Checker). An error is a store that could
// not be read: the message is neither taken nor refused.
func (c *Checker) Check(ctx context.Context, m *envelope.Message) (Result, error) {
	return c.check(ctx, m, m.From)
}

// CheckAs judges m as signed by agent who rather than by its from: a
// message sent in another agent's name (see SentBy). Verified means who
// signed it with the key pinned for who.
func (c *Checker) CheckAs(ctx context.Context, m *envelope.Message, who string) (Result, error) {
	return c.check(ctx, m, who)
}

// check judges m as written by who.
func (c *Checker) check(ctx context.Context, m *envelope.Message, who string) (Result, error) {
	pin, err := c.pin(ctx, who, false)
	if errors.Is(err, store.ErrCorruptState) {
		return Result{Verdict: Refused, Reason: fmt.Sprintf("unverified: %v; `switchboard agents trust %s` pins its card's key again", err, who)}, nil
	}
	if err != nil {
		return Result{}, err
	}
	if m.Signature == nil {
		return c.unsigned(who, pin, "unsigned"), nil
	}
	var res Result
	if pin == nil {
		var why string
		if pin, why, err = c.firstSight(ctx, who); err != nil {
			return Result{}, err
		}
		if pin == nil {
			return c.unsigned(who, nil, why), nil
		}
		if c.write {
			res = Result{Change: Pinned, Key: pin.PublicKey}
		}
	}
	if m.Signature.Key != pin.PublicKey {
		if pin, err = c.pin(ctx, who, true); err != nil { // trusted meanwhile?
			return Result{Verdict: Refused, Reason: fmt.Sprintf("unverified: %v", err)}, nil
		}
		if pin == nil || m.Signature.Key != pin.PublicKey {
			rotated, err := c.rotation(ctx, who, m.Signature.Key)
			if err != nil {
				return Result{}, err
			}
			if rotated == nil {
				return c.changed(m, who, pin), nil
			}
			pin, res = rotated, Result{Change: Rotated, Key: rotated.PublicKey}
		}
	}
	kp, err := nkeys.FromPublicKey(pin.PublicKey)
	if err == nil {
		err = envelope.VerifySignature(m, kp)
	}
	if err != nil {
		res.Verdict, res.Reason = Refused, fmt.Sprintf("forged: %v (from %s, whose pinned key is %s)", err, who, pin.PublicKey)
		return res, nil
	}
	res.Verdict = Verified
	return res, nil
}

// unsigned is the result of a message from agent that carries no
// signature that can be checked (why), its pin being pin.
func (c *Checker) unsigned(agent string, pin *Pin, why string) Result {
	if c.policy.allowsUnsigned(agent, pin != nil) {
		return Result{Verdict: Unverified, Reason: why}
	}
	if pin == nil {
		return Result{Verdict: Refused, Reason: fmt.Sprintf("unverified: %s message from %s, which channels.mailbox.allowUnsigned does not list", why, agent)}
	}
	return Result{Verdict: Refused, Reason: fmt.Sprintf("unverified: %s message from %s, whose key is pinned (%s); only what that key signed is taken from it",
		why, agent, pin.PublicKey)}
}

// changed is the result of m, signed with a key that is not the one
// pinned (pin, nil when the pin is gone).
func (c *Checker) changed(m *envelope.Message, who string, pin *Pin) Result {
	pinned := "none"
	if pin != nil {
		pinned = pin.PublicKey
	}
	return Result{Verdict: Refused, Change: ChangeRefused, Key: m.Signature.Key,
		Reason: fmt.Sprintf("unverified: signed with key %s, not the key pinned for %s (%s); a changed key is refused until `switchboard agents trust %s`",
			m.Signature.Key, who, pinned, who)}
}

// pin returns the key pinned for agent that counts (nil: none), from the
// cache unless fresh or the cache is old. With an operator key, a key
// counts only when the operator trusted it (agents trust) or vouches for
// it on the agent's card: a pin the agent or a receiver made of a key the
// operator did not vouch for is as none.
func (c *Checker) pin(ctx context.Context, agent string, fresh bool) (*Pin, error) {
	now := c.now()
	c.mu.Lock()
	cp, ok := c.pins[agent]
	c.mu.Unlock()
	if ok && !fresh && now.Sub(cp.at) < cacheFor {
		return cp.pin, nil
	}
	pin, err := LoadPin(ctx, c.st, agent)
	if err != nil {
		return nil, err
	}
	if pin != nil && c.op != nil && pin.By != ByOperator && pin.By != ByOperatorKey {
		card, err := c.st.Card(ctx, agent)
		if err != nil && !errors.Is(err, store.ErrUnknownAgent) {
			return nil, err
		}
		if card.PublicKey != pin.PublicKey || !Vouched(card, c.op) {
			pin = nil
		}
	}
	c.remember(agent, pin, now)
	return pin, nil
}

func (c *Checker) remember(agent string, pin *Pin, at time.Time) {
	c.mu.Lock()
	c.pins[agent] = cachedPin{pin: pin, at: at}
	c.mu.Unlock()
}

// firstSight returns the key of agent's card, pinned now (a read-only
// checker only returns it): agent's first signed message. No card, no key
// on it, or (with an operator key) a key the operator did not vouch for
// is no pin, and why says so. A key the operator key vouches for replaces
// a pin that does not count (see pin); any other is pinned only where
// none is.
func (c *Checker) firstSight(ctx context.Context, agent string) (pin *Pin, why string, err error) {
	card, err := c.st.Card(ctx, agent)
	if errors.Is(err, store.ErrUnknownAgent) {
		return nil, "signed, but " + agent + " has no card to find its key on", nil
	}
	if err != nil {
		return nil, "", err
	}
	switch {
	case card.PublicKey == "":
		return nil, "signed, but the card of " + agent + " names no key", nil
	case !nkeys.IsValidPublicUserKey(card.PublicKey):
		return nil, "signed, but the card of " + agent + " names no valid key", nil
	case c.op != nil && !Vouched(card, c.op):
		return nil, "signed, but the operator key does not vouch for the key on the card of " + agent, nil
	}
	p := Pin{AgentID: agent, PublicKey: card.PublicKey, PinnedAt: c.now().UTC(), By: byFirstSight + c.self}
	switch {
	case !c.write:
		return &p, "", nil
	case c.op != nil:
		p.By = ByOperatorKey
		err = SavePin(ctx, c.st, p)
	default:
		var made *Pin
		if made, err = CreatePin(ctx, c.st, p); made != nil {
			p = *made
		}
	}
	if err != nil {
		return nil, "", err
	}
	c.remember(agent, &p, c.now())
	return &p, "", nil
}

// rotation pins key for agent when the operator key vouches for it on
// agent's card, and returns the new pin; nil when it does not.
func (c *Checker) rotation(ctx context.Context, agent, key string) (*Pin, error) {
	if c.op == nil {
		return nil, nil
	}
	card, err := c.st.Card(ctx, agent)
	if errors.Is(err, store.ErrUnknownAgent) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if card.PublicKey != key || !Vouched(card, c.op) {
		return nil, nil
	}
	p := Pin{AgentID: agent, PublicKey: key, PinnedAt: c.now().UTC(), By: ByOperatorKey}
	if c.write {
		if err := SavePin(ctx, c.st, p); err != nil {
			return nil, err
		}
	}
	c.remember(agent, &p, c.now())
	return &p, nil
}
