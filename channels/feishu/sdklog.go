package feishu

import (
	"context"
	"fmt"
	"log/slog"
)

// sdkLogger passes the SDK's logs to the channel's logger: its info at
// debug (it is chatty), its warnings and errors as they are. The SDK logs
// no credentials (request bodies are not logged).
type sdkLogger struct{ l *slog.Logger }

func (s sdkLogger) Debug(ctx context.Context, args ...any) { s.log(ctx, slog.LevelDebug, args) }
func (s sdkLogger) Info(ctx context.Context, args ...any)  { s.log(ctx, slog.LevelDebug, args) }
func (s sdkLogger) Warn(ctx context.Context, args ...any)  { s.log(ctx, slog.LevelWarn, args) }
func (s sdkLogger) Error(ctx context.Context, args ...any) { s.log(ctx, slog.LevelError, args) }

func (s sdkLogger) log(ctx context.Context, level slog.Level, args []any) {
	if ctx == nil {
		ctx = context.Background()
	}
	if s.l.Enabled(ctx, level) {
		s.l.Log(ctx, level, "feishu sdk: "+fmt.Sprint(args...))
	}
}
