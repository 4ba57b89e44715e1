// Package full provides the Extras of the command line (cli.Extras): the
// agent host with its LLM providers and MCP client, the OTLP span
// exporter, the MCP server, the NATS backend, and the start of the demo's
// NATS server (switchboard-natsd, a program of its own, so that no agent
// process links a NATS server). The program switchboard-full links it in; switchboard does
// not, so that its mailbox commands start fast and an idle agent holds
// little memory, and hands the commands that need these to
// switchboard-full (see cli.Extras and package companion).
package full
