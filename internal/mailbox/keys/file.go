package keys

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/uuid"
	"github.com/nats-io/nkeys"

	"github.com/switchboard-dev/switchboard/internal/token"
)

// fromFile loads the key in the file at path, an nkeys seed ("SU...", as
// NATS nkey seed files hold) or a NATS .creds file; with create, a key is
// made when there is no file.
func fromFile(path string, create bool) (*Key, error) {
	data, err := token.Read(path) // a regular file readable by its owner only
	if errors.Is(err, fs.ErrNotExist) && create {
		if err := MakeFile(path, createUser); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		data, err = token.Read(path)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: no key file %s", ErrNoKey, path)
	}
	if err != nil {
		return nil, err
	}
	kp, err := nkeys.ParseDecoratedNKey([]byte(data))
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	seed, err := kp.Seed()
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	return fromSeed(seed, OriginFile, path)
}

// MakeFile writes a new key made by create to the file at path, mode
// 0600, its folder made 0700 if need be. It never replaces a file: one
// already there fails with an error wrapping fs.ErrExist (the file is
// written beside it and linked into place, so a reader sees it whole).
func MakeFile(path string, create func() (nkeys.KeyPair, error)) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("key file %s: %w", path, err)
	}
	kp, err := create()
	if err != nil {
		return err
	}
	seed, err := kp.Seed()
	if err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+"."+uuid.NewString()+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("key file %s: %w", path, err)
	}
	defer os.Remove(tmp)
	_, err = f.Write(append(seed, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("key file %s: %w", path, err)
	}
	return nil
}
