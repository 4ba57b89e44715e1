package fsstore

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"os"
)

var _ driver.Pinger = (*Store)(nil)

// Ping implements driver.Pinger: the store is open and its root is still a
// folder this process can read.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	info, err := os.Lstat(s.root)
	if err != nil {
		return fmt.Errorf("mailbox root: %w", err)
	}
	if !info.IsDir() {
		return fmt.Errorf("mailbox root %s is no longer a folder", s.root)
	}
	f, err := os.Open(s.root)
	if err != nil {
		return fmt.Errorf("mailbox root: %w", err)
	}
	defer f.Close()
	if _, err := f.Readdirnames(1); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("mailbox root %s: %w", s.root, err)
	}
	return nil
}
