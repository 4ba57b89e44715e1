// Command embed is the smallest complete program that embeds switchboard: a
// host with a custom channel, "stdio", whose user types on standard input and
// reads the agent's answers on standard output. Enable it in the config
// (~/.nanobot/config.json): {"channels": {"stdio": {"enabled": true}}}.
package main
