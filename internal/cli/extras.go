package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/config"
)

// Extras are the parts of the command line that link large libraries: the
// agent host with its LLM provider SDKs and MCP client (run, config
// check), OpenTelemetry's exporter, the MCP server (mcp), the NATS client
// (the nats backend), and the demo with its OTLP receiver and metrics
// reader (demo --observe) and the start of its NATS server.
//
// Go initialises every package a binary links before main runs, whether a
// command uses it or not, so a binary that links them all starts slowly
// and holds more memory. switchboard is therefore two programs built from
// this one command line: switchboard, without Extras (Env.Extras nil),
// which runs the mailbox commands on the folder store itself, and
// switchboard-full, with all of them (package full). A command that needs
// what switchboard lacks returns errNeedsFull before it does anything, and
// Main hands the whole command line to Env.Delegate, which runs it in
// switchboard-full (see package companion).
type Extras struct {
	// RunHost assembles the host that cfg describes and runs it until ctx
	// ends (run).
	RunHost func(ctx context.Context, cfg *config.Config, o HostOptions) error
	// StartTracing installs the exporter of spans that cfg and o.Environ
	// ask for (see otlp.Start) and returns what flushes and stops it and
	// where spans go ("" when tracing is off).
	StartTracing func(ctx context.Context, cfg config.TracingConfig, o TracingOptions) (shutdown func(context.Context) error, where string, err error)
	// CheckProvider builds the LLM provider of cfg and reports why it
	// cannot be built (config check).
	CheckProvider func(cfg *config.Config, environ []string) error
	// ServeMCP serves the mailbox as an MCP server until ctx ends (mcp).
	ServeMCP func(ctx context.Context, o MCPOptions) error
	// Demo runs the two-agent demo (package demo), whose agents are run
	// processes of this program.
	Demo func(ctx context.Context, o DemoOptions) error
	// ServeA2A runs the A2A gateway until ctx ends (a2a serve).
	ServeA2A func(ctx context.Context, o A2AOptions) error
}

// HostOptions is what RunHost needs from the command line.
type HostOptions struct {
	Logger      *slog.Logger
	Environ     []string
	StopTimeout time.Duration
	// MetricsListen serves the host's metrics on this host:port ("":
	// none).
	MetricsListen string
	// Tracing starts tracing for the host's agent ("" for none) once the
	// host is assembled, and returns what flushes the spans at the end.
	Tracing func(agent string) (stop func(), err error)
}

// DemoOptions is what Demo needs from the command line: its flags and
// where to print.
type DemoOptions struct {
	Dir              string
	Timeout          time.Duration
	Keep, Observe    bool
	Backend, NATSURL string
	Stdout           io.Writer
	Environ          []string
}

// UsageError marks err as an error in how the command was called (exit
// status 2), for Extras to return.
func UsageError(err error) error { return asUsage(err) }

// TracingOptions is what StartTracing needs from the command line.
type TracingOptions struct {
	Environ []string
	Logger  *slog.Logger
	// Agent is the agent's id, the resource attribute gen_ai.agent.name
	// ("" for none).
	Agent string
}

// MCPOptions is what ServeMCP needs from the command line.
type MCPOptions struct {
	// Card registers the agent at once when its AgentID is set.
	AgentID, Description string
	Capabilities         []string
	// Listen serves streamable HTTP on this host:port; "" serves stdio.
	Listen string
	// Config returns the mailbox settings of an agent.
	Config  func(id string) (mailbox.Config, error)
	Logger  *slog.Logger
	Version string
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	// StopTimeout bounds the stop of the mailbox at the end.
	StopTimeout time.Duration
}

// errNeedsFull is returned by a command that needs Extras this binary was
// built without; Main then delegates the command line.
var errNeedsFull = errors.New("needs the full command line")

// needsFullError says which command needed what.
type needsFullError struct{ what string }

func (e *needsFullError) Error() string { return e.what + " " + errNeedsFull.Error() }
func (e *needsFullError) Unwrap() error { return errNeedsFull }

// extras returns the Extras, or an errNeedsFull error naming what for
// when this binary has none.
func (a *app) extras(what string) (*Extras, error) {
	if a.env.Extras == nil {
		return nil, a.needsFull(what)
	}
	return a.env.Extras, nil
}

// needsFull returns the errNeedsFull error for what, and notes it.
func (a *app) needsFull(what string) error {
	a.neededFull = true
	return &needsFullError{what: what}
}

// delegate runs args in the full command line, or says why it cannot.
func delegate(env Env, args []string, err error) int {
	if env.Delegate != nil {
		return env.Delegate(args)
	}
	fmt.Fprintf(env.Stderr, "switchboard: %s: this binary was built without it and cannot run switchboard-full\n", oneLine(err.Error()))
	return ExitFailure
}
