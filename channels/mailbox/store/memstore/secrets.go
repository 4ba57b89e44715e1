package memstore

import "github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"

var _ driver.SecretKeeper = (*Store)(nil)

// KeepsSecrets implements driver.SecretKeeper: the records live in the
// process's memory.
func (s *Store) KeepsSecrets() {}
