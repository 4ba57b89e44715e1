package feishustub

import (
	"context"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAwaitWaitsForAReplyPastAfter: a reader waiting for the replies
// after the first 2 is not answered by the first or the second reply
// (it used to return at the first reply to the chat, with nothing); the
// third wakes it, with that reply alone.
func TestAwaitWaitsForAReplyPastAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o, err := openOutbox(filepath.Join(t.TempDir(), "outbox.jsonl"))
		require.NoError(t, err)
		defer o.close()
		got := make(chan []Reply, 1)
		go func() {
			replies, err := o.await(context.Background(), "oc_chat", 2, 10*time.Second)
			assert.NoError(t, err)
			got <- replies
		}()
		for i, text := range []string{"accepted", "working"} {
			synctest.Wait() // the reader waits
			require.NoError(t, o.append(Reply{ChatID: "oc_chat", Content: text}))
			synctest.Wait()
			select {
			case r := <-got:
				t.Fatalf("returned after reply %d of 3, before the one it waits for: %v", i+1, r)
			default:
			}
		}
		require.NoError(t, o.append(Reply{ChatID: "oc_other", Content: "elsewhere"}))
		require.NoError(t, o.append(Reply{ChatID: "oc_chat", Content: "1 3 5 9"}))
		assert.Equal(t, []Reply{{ChatID: "oc_chat", Content: "1 3 5 9"}}, <-got)
	})
}

// TestAwaitTimesOutAndStopsWithItsContext: with no reply past n, await
// returns an empty list when wait is over, and ctx's error when ctx ends.
func TestAwaitTimesOutAndStopsWithItsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o, err := openOutbox(filepath.Join(t.TempDir(), "outbox.jsonl"))
		require.NoError(t, err)
		defer o.close()
		require.NoError(t, o.append(Reply{ChatID: "oc_chat", Content: "one"}))
		start := time.Now()
		replies, err := o.await(context.Background(), "oc_chat", 1, 10*time.Second)
		require.NoError(t, err)
		assert.Equal(t, []Reply{}, replies)
		assert.Equal(t, 10*time.Second, time.Since(start))

		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err = o.await(ctx, "oc_chat", 1, 10*time.Second)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	})
}
