package fsstore

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakePIDFile records writes and fails the calls it is told to.
type fakePIDFile struct {
	truncErr, writeErr error
	data               []byte
	truncated          bool
}

func (f *fakePIDFile) Truncate(int64) error {
	if f.truncErr != nil {
		return f.truncErr
	}
	f.truncated, f.data = true, nil
	return nil
}

func (f *fakePIDFile) WriteAt(b []byte, _ int64) (int, error) {
	if f.writeErr != nil {
		return 0, f.writeErr
	}
	f.data = append(f.data, b...)
	return len(b), nil
}

func TestWritePID(t *testing.T) {
	errTrunc, errWrite := errors.New("truncate failed"), errors.New("write failed")
	tests := []struct {
		name string
		file fakePIDFile
		want error
	}{
		{name: "ok"},
		{name: "truncate fails", file: fakePIDFile{truncErr: errTrunc}, want: errTrunc},
		{name: "write fails", file: fakePIDFile{writeErr: errWrite}, want: errWrite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := writePID(&tt.file, 4242)
			if tt.want != nil {
				require.ErrorIs(t, err, tt.want)
				return
			}
			require.NoError(t, err)
			assert.True(t, tt.file.truncated)
			assert.Equal(t, "4242\n", string(tt.file.data))
		})
	}
}
