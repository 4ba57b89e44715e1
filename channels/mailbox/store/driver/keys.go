package driver

// Optional abilities of a Backend about the agents' signing keys (see
// package internal/mailbox/keys), found by the facade like the others.

// SecretKeeper is a Backend whose agent records (an agent's shelf) only
// the user who runs the agents can read: the folder store (files 0600 in
// a tree 0700), the memory store (the process). An agent's signing key may
// then be kept among its records. A backend whose records others can read
// (a server's buckets) must not have it.
type SecretKeeper interface {
	// KeepsSecrets marks the ability; it does nothing.
	KeepsSecrets()
}

// CredentialKeys is a Backend that connects with a key of the agent it was
// opened for (NATS: the nkey of its credentials or nkey seed file), which
// may serve as that agent's signing key.
type CredentialKeys interface {
	// CredentialSeed returns the seed of the key the backend connects with
	// when agent is the agent it was opened for and it connects with a
	// key, else an error wrapping ErrNoCredentialKey.
	CredentialSeed(agent string) ([]byte, error)
}
