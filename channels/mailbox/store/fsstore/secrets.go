package fsstore

import "github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"

var _ driver.SecretKeeper = (*Store)(nil)

// KeepsSecrets implements driver.SecretKeeper: an agent's records are
// files 0600 in its folder of a tree 0700 that no other user may own or
// write (see root.go), so its signing key may be one of them.
func (s *Store) KeepsSecrets() {}
