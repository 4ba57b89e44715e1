package slack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"
)

// ackTimeout bounds the queueing of an acknowledgement.
const ackTimeout = 10 * time.Second

// runSocket runs the Socket Mode client until ctx ends: slack-go's client
// keeps the connection (it reconnects when the connection breaks or Slack
// asks it to), and this loop reads what it emits, handling each events_api
// envelope in a goroutine of its own, which acknowledges it once the
// event is taken (see receive.go). The outcome of the first connection
// attempt goes to first. It returns once the events in hand are finished.
func (c *Channel) runSocket(ctx context.Context, client *socketmode.Client, first chan<- outcome) {
	var handlers sync.WaitGroup
	defer handlers.Wait()
	report := func(o outcome) {
		select {
		case first <- o: // the first outcome; later ones are logged
		default:
		}
	}
	ended := make(chan error, 1)
	go func() { ended <- client.RunContext(ctx) }()
	connected := 0
	for {
		select {
		case err := <-ended:
			if err = apiError("socket mode", "appToken", err); !errors.Is(err, ErrCredentials) && ctx.Err() == nil {
				err = fmt.Errorf("%s.appToken: %w; check that Socket Mode is on in the app's settings "+
					"and that the token has the connections:write scope", keyPath, err)
			}
			report(outcome{err: err, fatal: true})
			if ctx.Err() == nil {
				c.Logger().Error("slack socket mode stopped; no more events are received until a restart", "err", err)
			}
			return
		case evt := <-client.Events:
			switch evt.Type {
			case socketmode.EventTypeConnected:
				report(outcome{})
				connected++
				if connected == 1 {
					c.Logger().Info("slack socket mode connected")
				} else {
					c.Logger().Info("slack socket mode connected again")
				}
			case socketmode.EventTypeConnectionError:
				e, ok := evt.Data.(*slack.ConnectionErrorEvent)
				if !ok || ctx.Err() != nil {
					continue
				}
				err := apiError("socket mode", "appToken", e.ErrorObj)
				report(outcome{err: err, fatal: errors.Is(err, ErrCredentials)})
				c.Logger().Warn("slack socket mode not connected; trying again", "attempt", e.Attempt, "backoff", e.Backoff, "err", err)
			case socketmode.EventTypeEventsAPI:
				handlers.Go(func() { c.onEventsAPI(ctx, client, evt) })
			case socketmode.EventTypeSlashCommand, socketmode.EventTypeInteractive:
				c.Logger().Debug("slack request of a kind the channel does not handle; acknowledged", "type", evt.Type)
				if evt.Request != nil {
					c.ack(client, evt.Request.EnvelopeID)
				}
			case socketmode.EventTypeErrorBadMessage:
				c.onBadMessage(client, evt)
			}
		}
	}
}

// outcome is how a first Socket Mode connection attempt ended: connected
// (err nil), failed for good (fatal: a token refused, the client gave
// up), or failed for now (Socket Mode goes on trying).
type outcome struct {
	err   error
	fatal bool
}

// onEventsAPI takes one events_api envelope and acknowledges it once the
// event is taken; an event not taken is left unacknowledged, and Slack
// delivers it again.
func (c *Channel) onEventsAPI(ctx context.Context, client *socketmode.Client, evt socketmode.Event) {
	ev, ok := evt.Data.(slackevents.EventsAPIEvent)
	if !ok || evt.Request == nil {
		return
	}
	if evt.Request.RetryAttempt > 0 {
		c.Logger().Debug("slack delivers an event again", "attempt", evt.Request.RetryAttempt, "reason", evt.Request.RetryReason)
	}
	if err := c.take(ctx, ev); err != nil {
		c.Logger().Warn("slack event not taken; Slack delivers it again", "err", err)
		return
	}
	c.ack(client, evt.Request.EnvelopeID)
}

// onBadMessage acknowledges an envelope slack-go could not read (an
// event of a shape it does not know): delivered again, it would fail
// again.
func (c *Channel) onBadMessage(client *socketmode.Client, evt socketmode.Event) {
	bad, ok := evt.Data.(*socketmode.ErrorBadMessage)
	if !ok {
		return
	}
	var env struct {
		EnvelopeID string `json:"envelope_id"`
	}
	if json.Unmarshal(bad.Message, &env) == nil && env.EnvelopeID != "" {
		c.ack(client, env.EnvelopeID)
	}
	c.Logger().Warn("slack envelope not understood; acknowledged and dropped", "err", bad.Cause)
}

// ack queues the acknowledgement of an envelope. It goes out on the
// connection the envelope came on, or not at all when that connection
// ended: then Slack delivers the event again, and the journal knows it.
func (c *Channel) ack(client *socketmode.Client, envelopeID string) {
	ctx, cancel := context.WithTimeout(context.Background(), ackTimeout)
	defer cancel()
	if err := client.AckCtx(ctx, envelopeID, nil); err != nil {
		c.Logger().Warn("slack envelope not acknowledged; Slack delivers it again", "envelope_id", envelopeID, "err", err)
	}
}
