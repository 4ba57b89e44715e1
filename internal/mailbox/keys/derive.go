package keys

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha512"
	"fmt"

	"filippo.io/edwards25519"
	"github.com/nats-io/nkeys"
)

// newUser makes a new nkeys user key pair and returns it with its public
// key (U…), as nkeys.CreateUser and KeyPair.PublicKey would, without
// their cost at an agent's first start: Go's Ed25519 derives a public key
// with a table of multiples of the base point that the first use in a
// process builds, 1.4 ms, where the one multiplication publicOf makes
// costs 0.1 ms. The table is then built at the agent's first signature,
// if it signs at all.
func newUser() (nkeys.KeyPair, string, error) {
	kp, err := createUser()
	if err != nil {
		return nil, "", err
	}
	seed, err := kp.Seed()
	if err != nil {
		return nil, "", err
	}
	pub, err := publicOf(seed)
	if err != nil {
		return nil, "", err
	}
	return kp, pub, nil
}

// createUser makes a new nkeys user key pair, as nkeys.CreateUser does,
// without deriving its public key (which nkeys.CreateUser does with the
// table newUser avoids): a key pair made from a seed derives it when asked.
func createUser() (nkeys.KeyPair, error) {
	raw := make([]byte, ed25519.SeedSize)
	if _, err := rand.Read(raw); err != nil {
		return nil, err
	}
	return nkeys.FromRawSeed(nkeys.PrefixByteUser, raw)
}

// publicOf returns the public key of an nkeys seed, what
// KeyPair.PublicKey returns for it: the Ed25519 public key of the raw seed
// (the clamped first half of its SHA-512 times the base point, RFC 8032
// 5.1.5), computed by a variable-base multiplication of the curve's
// generator, and encoded with the seed's public prefix.
func publicOf(seed []byte) (string, error) {
	prefix, raw, err := nkeys.DecodeSeed(seed)
	if err != nil {
		return "", err
	}
	h := sha512.Sum512(raw)
	s, err := edwards25519.NewScalar().SetBytesWithClamping(h[:32])
	if err != nil {
		return "", fmt.Errorf("derive public key: %w", err)
	}
	pub := new(edwards25519.Point).ScalarMult(s, edwards25519.NewGeneratorPoint()).Bytes()
	enc, err := nkeys.Encode(prefix, pub)
	if err != nil {
		return "", err
	}
	return string(enc), nil
}
