// Command switchboard-full is the whole switchboard command line, with
// the agent host (run), its LLM provider SDKs and MCP client, the MCP
// server (mcp), the NATS backend and the OTLP span exporter linked in (see
// cli.Extras). The demo's NATS server is switchboard-natsd.
//
// People run switchboard, which runs the mailbox commands on the folder
// store itself and hands everything else to switchboard-full, found beside
// it or on PATH: go install ./cmd/... installs them all. Running
// switchboard-full directly works too; it accepts every command and flag
// of switchboard.
package main
