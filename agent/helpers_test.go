package agent_test

import "github.com/switchboard-dev/switchboard/bus"

func busMessage(channel string) bus.InboundMessage {
	return bus.InboundMessage{Channel: channel, ChatID: "c1", SenderID: "u1"}
}
