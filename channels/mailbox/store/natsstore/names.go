package natsstore

import (
	"encoding/base64"
	"strings"
)

// token maps an agent id to one subject token, consumer name part and KV
// key: the id itself when it has only ASCII letters, digits, '-' and '_';
// otherwise "=" and its base64url form ('=' never occurs in an agent id, so
// the two forms cannot collide).
func token(agent string) string {
	for i := 0; i < len(agent); i++ {
		c := agent[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return "=" + base64.RawURLEncoding.EncodeToString([]byte(agent))
		}
	}
	return agent
}

// names are the subjects, consumer and keys of one store configuration.
type names struct {
	prefix string
}

// inbox is the subject of a message from `from` to `to`.
func (n names) inbox(to, from string) string {
	return n.prefix + "." + token(to) + ".inbox." + token(from)
}

// priority is the subject of a message of priority 1 to 3 from `from` to
// `to`.
func (n names) priority(to, from string) string {
	return n.prefix + "." + token(to) + ".priority." + token(from)
}

// inboxFilter is the filter of agent's consumer.
func (n names) inboxFilter(agent string) string { return n.prefix + "." + token(agent) + ".inbox.*" }

// priorityFilter is the filter of agent's priority consumer.
func (n names) priorityFilter(agent string) string {
	return n.prefix + "." + token(agent) + ".priority.*"
}

// dead is the dead-letter subject of agent's inbox.
func (n names) dead(agent string) string { return n.prefix + "." + token(agent) + ".dead" }

// streamSubjects are the subjects the stream holds.
func (n names) streamSubjects() []string {
	return []string{n.prefix + ".*.inbox.*", n.prefix + ".*.priority.*", n.prefix + ".*.dead"}
}

// senderToken returns the sender token of an inbox or priority subject.
func (n names) senderToken(subject string) string {
	i := strings.LastIndexByte(subject, '.')
	if i < 0 {
		return ""
	}
	return subject[i+1:]
}

// consumerName is the durable name of agent's inbox consumer.
func consumerName(agent string) string { return "inbox-" + token(agent) }

// priorityConsumerName is the durable name of agent's priority consumer.
func priorityConsumerName(agent string) string { return "prio-" + token(agent) }

// stateKey is the KV key of one state record.
func stateKey(agent, key string) string { return token(agent) + "." + key }
