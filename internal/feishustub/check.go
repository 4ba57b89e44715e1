package feishustub

import (
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/config"
)

func init() { channels.RegisterChecker(TypeName, Check) }

// Check decodes and validates a channels.feishu section as Factory does,
// without listening (a channels.Checker). nanobot's Feishu keys that the
// stub has no use for (reactEmoji, domain, ...) are accepted and ignored.
func Check(section config.Section) error {
	_, err := DecodeConfig(section)
	return err
}
