// Package natstest runs an embedded nats-server with JetStream for tests:
// one per test (Start) when a test restarts or reconfigures it, or one per
// test binary (Shared) that many tests use at once, each in a namespace of
// its own (Namespace: stream, subjects and buckets nobody else uses), so
// that a package's tests run in parallel on one server.
package natstest
