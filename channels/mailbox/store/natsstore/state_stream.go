package natsstore

import (
	"context"
	"encoding/json"
)

// noneStored reports whether the state bucket holds no entry (not even a
// deletion's marker) under the keys pattern matches. It asks one direct
// get for the first message on those subjects (a listing makes the server
// create and delete a consumer, on a cluster through its meta group, and
// a stream's info filtered by subject needs the stream looked up first):
// every agent that starts lists the approvals, and there are usually
// none. false when the server cannot say (a bucket made without direct
// gets): the caller lists.
func (s *Store) noneStored(ctx context.Context, pattern string) bool {
	req, err := json.Marshal(directGet{Seq: 1, NextBySubject: "$KV." + s.opts.StateBucket + "." + pattern})
	if err != nil {
		return false
	}
	if _, ok := ctx.Deadline(); !ok { // as the client's JetStream requests are bounded
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, requestTimeout)
		defer cancel()
	}
	msg, err := s.nc.RequestWithContext(ctx, "$JS.API.DIRECT.GET.KV_"+s.opts.StateBucket, req)
	return err == nil && msg.Header.Get(statusHeader) == notFoundStatus
}

// directGet is the request of a JetStream direct get: the first message
// at or after Seq on the subjects NextBySubject matches.
type directGet struct {
	Seq           uint64 `json:"seq"`
	NextBySubject string `json:"next_by_subj"`
}

// statusHeader holds the status of an answer without a message, and
// notFoundStatus is a direct get's when no message matches.
const (
	statusHeader   = "Status"
	notFoundStatus = "404"
)
