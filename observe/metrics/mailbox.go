package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// latencyBuckets are the delivery latency's, in seconds: from a
// millisecond (a local folder) to ten minutes (an agent that was down).
var latencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 600}

type mailboxMetrics struct {
	sent, received, redelivered *prometheus.CounterVec
	acknowledged, duplicates    *prometheus.CounterVec
	setAside                    *prometheus.CounterVec
	latency                     *prometheus.HistogramVec
}

func newMailboxMetrics(reg *prometheus.Registry) mailboxMetrics {
	return mailboxMetrics{
		sent: counter(reg, "switchboard_mailbox_messages_sent_total",
			"Mailbox messages this agent stored in a recipient's inbox, by message type.", labelAgent, labelType),
		received: counter(reg, "switchboard_mailbox_messages_received_total",
			"Mailbox messages handed to the agent (published on its bus), by message type.", labelAgent, labelType),
		redelivered: counter(reg, "switchboard_mailbox_messages_redelivered_total",
			"Mailbox messages handed to the agent that may have been handed out before (recovered after a crash or a stop).", labelAgent, labelType),
		acknowledged: counter(reg, "switchboard_mailbox_messages_acknowledged_total",
			"Mailbox messages acknowledged (moved to processed/) once handled.", labelAgent),
		duplicates: counter(reg, "switchboard_mailbox_messages_duplicate_total",
			"Mailbox messages dropped as copies of messages already handled.", labelAgent),
		setAside: counter(reg, "switchboard_mailbox_messages_set_aside_total",
			"Mailbox messages set aside, by outcome: refused (by policy: allowFrom, loops, perSender), unreadable (malformed, oversized, unsafe) or max_deliver (handed out maxDeliver times without an acknowledgement).", labelAgent, labelOutcome),
		latency: histogram(reg, "switchboard_mailbox_delivery_latency_seconds",
			"Seconds from a mailbox message's timestamp (stamped by its sender) to its hand-over to the agent, by message type.",
			latencyBuckets, labelAgent, labelType),
	}
}

// Meter returns the mailbox.Meter that counts m's mailbox metrics.
func (m *Metrics) Meter() mailbox.Meter { return meter{m} }

type meter struct{ m *Metrics }

var _ mailbox.Meter = meter{}

// Event implements mailbox.Meter.
func (mt meter) Event(ev store.Event) {
	mb, agent := &mt.m.mailbox, mt.m.agent
	switch ev.Kind {
	case store.EventProcessed:
		mb.acknowledged.WithLabelValues(agent).Inc()
	case store.EventDuplicate:
		mb.duplicates.WithLabelValues(agent).Inc()
	case store.EventRefused:
		mb.setAside.WithLabelValues(agent, "refused").Inc()
	case store.EventQuarantined:
		outcome := "unreadable"
		if store.IsMaxDeliver(ev.Reason) {
			outcome = "max_deliver" // a poison message: handed out maxDeliver times, never acknowledged
		}
		mb.setAside.WithLabelValues(agent, outcome).Inc()
	}
}

// Sent implements mailbox.Meter.
func (mt meter) Sent(msg *envelope.Message) {
	mt.m.mailbox.sent.WithLabelValues(mt.m.agent, typeOf(msg)).Inc()
}

// Delivered implements mailbox.Meter.
func (mt meter) Delivered(msg *envelope.Message, redelivered bool, at time.Time) {
	mb, agent, typ := &mt.m.mailbox, mt.m.agent, typeOf(msg)
	mb.received.WithLabelValues(agent, typ).Inc()
	if redelivered {
		mb.redelivered.WithLabelValues(agent, typ).Inc()
		return // its latency is the time it waited for a restart
	}
	if !msg.Timestamp.IsZero() {
		mb.latency.WithLabelValues(agent, typ).Observe(max(at.Sub(msg.Timestamp.Time), 0).Seconds())
	}
}

// typeOf is the type label of msg: its type, "message" when it has none,
// "other" for a type this version does not know (the label stays small).
func typeOf(msg *envelope.Message) string {
	switch msg.Type {
	case "":
		return string(envelope.TypeMessage)
	case envelope.TypeMessage, envelope.TypeTask, envelope.TypeTaskUpdate:
		return string(msg.Type)
	}
	return "other"
}
