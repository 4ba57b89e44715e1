package keys

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/nats-io/nkeys"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/config"
)

// DefaultDir is the folder of the agents' key files when neither the
// config nor the store says where an agent's key is.
const DefaultDir = "~/.nanobot/keys"

// keyRecord is the state record that holds an agent's key on a store
// that keeps secrets (store.Store.KeepsSecrets).
const keyRecord = "signing-key"

// ErrNoKey is wrapped by Load when the agent has no key and Source.Create
// is false.
var ErrNoKey = errors.New("no signing key")

// Origin says where an agent's key is kept.
type Origin string

// The places a key is kept.
const (
	// OriginFile: a key file (channels.mailbox.keyFile, or DefaultFile).
	OriginFile Origin = "file"
	// OriginStore: the agent's state record signing-key, on a store whose
	// agent records only the user can read (the folder, memory).
	OriginStore Origin = "store"
	// OriginCredentials: the nkey the store connects with (NATS
	// credentials or nkey seed file of the agent's own).
	OriginCredentials Origin = "credentials"
)

// Key is an agent's signing key.
type Key struct {
	nkeys.KeyPair
	// Public is the public key ("U...").
	Public string
	// Origin and Where say where it is kept: the file, the record
	// (<agent>/state/signing-key) or the credentials.
	Origin Origin
	Where  string
}

// Source says where an agent's key is and whether to make one.
type Source struct {
	// File is channels.mailbox.keyFile: the key's file ("" for the
	// default: see Load). It may start with "~/".
	File string
	// Create makes a key where there is none (an agent's first start);
	// without it a missing key fails with ErrNoKey.
	Create bool
	// Now stamps a key made (default time.Now).
	Now func() time.Time
}

// DefaultFile is the key file of agent when nothing else says where its
// key is: DefaultDir/<agent>.nk, expanded.
func DefaultFile(agent string) (string, error) {
	dir, err := config.ExpandHome(DefaultDir)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, agent+".nk"), nil
}

// Load returns agent's signing key: from src.File when set; else the nkey
// the store connects with, when it is the agent's (NATS credentials);
// else the agent's record signing-key on a store that keeps secrets (the
// folder: <root>/<agent>/state/signing-key.json); else DefaultFile(agent).
// With src.Create a key is made where there is none (of several processes
// making it at once, one wins and the others load its key).
func Load(ctx context.Context, st *store.Store, agent string, src Source) (*Key, error) {
	if err := envelope.ValidateAgentID(agent); err != nil {
		return nil, err
	}
	if src.File != "" {
		path, err := config.ExpandHome(src.File)
		if err != nil {
			return nil, err
		}
		return fromFile(path, src.Create)
	}
	if st != nil {
		seed, err := st.CredentialSeed(agent)
		switch {
		case err == nil:
			return fromSeed(seed, OriginCredentials, "the store's credentials")
		case !errors.Is(err, store.ErrNotSupported):
			return nil, err
		}
		if st.KeepsSecrets() {
			return fromStore(ctx, st, agent, src)
		}
	}
	path, err := DefaultFile(agent)
	if err != nil {
		return nil, err
	}
	return fromFile(path, src.Create)
}

// storedKey is the JSON of the record signing-key.
type storedKey struct {
	Seed      string    `json:"seed"`
	PublicKey string    `json:"public_key"`
	CreatedAt time.Time `json:"created_at"`
}

// fromStore loads, or makes, the key kept as agent's record signing-key.
func fromStore(ctx context.Context, st *store.Store, agent string, src Source) (*Key, error) {
	where := agent + "/state/" + keyRecord
	data, err := st.LoadState(ctx, agent, keyRecord)
	if err != nil {
		return nil, err
	}
	if data == nil && src.Create {
		kp, pub, err := newUser()
		if err != nil {
			return nil, err
		}
		seed, _ := kp.Seed()
		now := time.Now
		if src.Now != nil {
			now = src.Now
		}
		rec, err := json.Marshal(storedKey{Seed: string(seed), PublicKey: pub, CreatedAt: now().UTC()})
		if err != nil {
			return nil, err
		}
		err = st.CreateState(ctx, agent, keyRecord, rec)
		if err == nil {
			return &Key{KeyPair: kp, Public: pub, Origin: OriginStore, Where: where}, nil
		}
		if !errors.Is(err, store.ErrStateExists) {
			return nil, err
		}
		if data, err = st.LoadState(ctx, agent, keyRecord); err != nil { // another made it first
			return nil, err
		}
	}
	if data == nil {
		return nil, fmt.Errorf("%w of %s in the store (%s)", ErrNoKey, agent, where)
	}
	var rec storedKey
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("signing key of %s (%s): %w", agent, where, err)
	}
	return fromSeed([]byte(rec.Seed), OriginStore, where)
}

// fromSeed makes the Key of a user seed.
func fromSeed(seed []byte, origin Origin, where string) (*Key, error) {
	kp, err := nkeys.FromSeed(seed)
	if err != nil {
		return nil, fmt.Errorf("signing key (%s): %w", where, err)
	}
	pub, err := publicOf(seed)
	if err != nil {
		return nil, fmt.Errorf("signing key (%s): %w", where, err)
	}
	if !nkeys.IsValidPublicUserKey(pub) {
		return nil, fmt.Errorf("signing key (%s): want an nkeys user key (seed SU…), got one starting %c", where, pub[0])
	}
	return &Key{KeyPair: kp, Public: pub, Origin: origin, Where: where}, nil
}

// SignAs signs m with the key of its sender (m.From) found as Load finds
// it without making one, as a tool that sends in an agent's name does
// (`switchboard send --from`, the operator's cancel). It reports false,
// leaving m unsigned, when the sender has no key that can be read here
// (why says where it looked).
func SignAs(ctx context.Context, st *store.Store, m *envelope.Message, src Source) (signed bool, why string, err error) {
	src.Create = false
	key, err := Load(ctx, st, m.From, src)
	if errors.Is(err, ErrNoKey) {
		return false, err.Error(), nil
	}
	if err != nil {
		return false, "", err
	}
	if err := envelope.Sign(m, key); err != nil {
		return false, "", err
	}
	return true, "", nil
}
