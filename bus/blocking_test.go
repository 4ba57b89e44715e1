package bus_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
)

// The tests in this file run in a synctest bubble: synctest.Wait returns
// only once every other goroutine of the test is durably blocked, so "the
// result channel has not fired after Wait" proves that the call is blocked,
// not merely slow; and deadlines use the bubble's fake clock.

// notYet fails the test if the call reporting on done has returned.
func notYet(t *testing.T, done <-chan error, what string) {
	t.Helper()
	select {
	case err := <-done:
		t.Fatalf("%s returned (%v); want it to wait", what, err)
	default:
	}
}

func TestPublishWaitsWhileFull(t *testing.T) {
	for _, s := range sides {
		t.Run(s.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := t.Context()
				b := bus.New(1)
				require.NoError(t, s.publish(ctx, b, 1))

				done := make(chan error, 1)
				go func() { done <- s.publish(ctx, b, 2) }()
				synctest.Wait()
				notYet(t, done, "publish to a full bus")
				assert.Equal(t, 1, s.depth(b))

				n, err := s.consume(ctx, b)
				require.NoError(t, err)
				assert.Equal(t, 1, n)
				require.NoError(t, <-done, "publisher should proceed once there is room")

				n, err = s.consume(ctx, b)
				require.NoError(t, err)
				assert.Equal(t, 2, n)
			})
		})
	}
}

func TestPublishWhileFullEndsWithContext(t *testing.T) {
	tests := []struct {
		name string
		// ctx returns the waiting call's context and what ends it, called
		// once the call is known to wait.
		ctx  func(t *testing.T) (context.Context, func())
		want error
	}{
		{
			name: "deadline",
			ctx: func(t *testing.T) (context.Context, func()) {
				ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
				t.Cleanup(cancel)
				// Nothing to do: once every goroutine waits, the fake
				// clock jumps to the deadline.
				return ctx, func() {}
			},
			want: context.DeadlineExceeded,
		},
		{
			name: "cancel",
			ctx: func(t *testing.T) (context.Context, func()) {
				return context.WithCancel(t.Context())
			},
			want: context.Canceled,
		},
	}
	for _, tt := range tests {
		for _, s := range sides {
			t.Run(tt.name+"/"+s.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					b := bus.New(1)
					require.NoError(t, s.publish(t.Context(), b, 1))

					ctx, end := tt.ctx(t)
					done := make(chan error, 1)
					go func() { done <- s.publish(ctx, b, 2) }()
					synctest.Wait()
					notYet(t, done, "publish to a full bus")

					end()
					err := <-done
					require.ErrorIs(t, err, tt.want)
					assert.Equal(t, 1, s.depth(b), "the failed message must not be queued")
					n, err := s.consume(t.Context(), b)
					require.NoError(t, err)
					assert.Equal(t, 1, n)
				})
			})
		}
	}
}

func TestConsumeWaitsWhileEmpty(t *testing.T) {
	for _, s := range sides {
		t.Run(s.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := t.Context()
				b := bus.New(4)
				type result struct {
					n   int
					err error
				}
				done := make(chan result, 1)
				go func() {
					n, err := s.consume(ctx, b)
					done <- result{n, err}
				}()
				synctest.Wait()
				select {
				case r := <-done:
					t.Fatalf("consume on an empty bus returned (%d, %v); want it to wait", r.n, r.err)
				default:
				}

				require.NoError(t, s.publish(ctx, b, 7))
				r := <-done
				require.NoError(t, r.err)
				assert.Equal(t, 7, r.n)
			})
		})
	}
}

func TestConsumeWhileEmptyEndsWithContext(t *testing.T) {
	tests := []struct {
		name string
		ctx  func(t *testing.T) (context.Context, func())
		want error
	}{
		{
			name: "deadline",
			ctx: func(t *testing.T) (context.Context, func()) {
				ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
				t.Cleanup(cancel)
				// Nothing to do: once every goroutine waits, the fake
				// clock jumps to the deadline.
				return ctx, func() {}
			},
			want: context.DeadlineExceeded,
		},
		{
			name: "cancel",
			ctx: func(t *testing.T) (context.Context, func()) {
				return context.WithCancel(t.Context())
			},
			want: context.Canceled,
		},
	}
	for _, tt := range tests {
		for _, s := range sides {
			t.Run(tt.name+"/"+s.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					b := bus.New(4)
					ctx, end := tt.ctx(t)
					done := make(chan error, 1)
					go func() {
						_, err := s.consume(ctx, b)
						done <- err
					}()
					synctest.Wait()
					notYet(t, done, "consume on an empty bus")

					end()
					require.ErrorIs(t, <-done, tt.want)

					// The bus still works after a consumer gave up.
					require.NoError(t, s.publish(t.Context(), b, 3))
					n, err := s.consume(t.Context(), b)
					require.NoError(t, err)
					assert.Equal(t, 3, n)
				})
			})
		}
	}
}
