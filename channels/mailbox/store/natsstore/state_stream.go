package natsstore

import (
	"context"
	"sync"

	"github.com/nats-io/nats.go/jetstream"
)

// stateStream is the stream of the state bucket, looked up on first use.
type stateStream struct {
	mu     sync.Mutex
	stream jetstream.Stream
}

// noneStored reports whether the state bucket holds no entry (not even a
// deletion's marker) under the keys pattern matches: one request for the
// stream's subjects, where a listing makes the server create and delete a
// consumer (on a cluster, through its meta group): every agent that
// starts lists the approvals, and there are usually none. false when the
// server cannot say: the caller lists.
func (s *Store) noneStored(ctx context.Context, pattern string) bool {
	s.stateInfo.mu.Lock()
	st := s.stateInfo.stream
	s.stateInfo.mu.Unlock()
	if st == nil {
		var err error
		if st, err = s.js.Stream(ctx, "KV_"+s.opts.StateBucket); err != nil {
			return false
		}
		s.stateInfo.mu.Lock()
		s.stateInfo.stream = st
		s.stateInfo.mu.Unlock()
	}
	info, err := st.Info(ctx, jetstream.WithSubjectFilter("$KV."+s.opts.StateBucket+"."+pattern))
	return err == nil && len(info.State.Subjects) == 0
}
