package slack

import (
	"context"
	"log/slog"
	"strings"
)

// sdkLogger takes the lines slack-go logs (it logs only in debug mode,
// which the channel leaves off) into the channel's logger at debug level,
// instead of the standard error slack-go writes to by default.
type sdkLogger struct{ l *slog.Logger }

// Output implements slack-go's logger.
func (s sdkLogger) Output(_ int, line string) error {
	s.l.Log(context.Background(), slog.LevelDebug, "slack-go: "+strings.TrimSpace(line))
	return nil
}
