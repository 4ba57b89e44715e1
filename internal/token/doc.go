// Package token holds the secrets switchboard's surfaces are guarded by:
// the token of `switchboard mcp --listen` every request carries, and the
// per-agent tokens a client registering as an agent proves itself with.
// It reads them from files only their owner can read, refuses tokens too
// short to guess at, and compares them in constant time.
package token
