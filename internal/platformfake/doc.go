// Package platformfake holds what the fakes of the chat platforms
// (internal/feishufake, internal/telegramfake, internal/slackfake) share:
// a Monitor, the mutex of a fake's recorded state that its tests wait on,
// and Failures, the queues of failures a test injects into the calls a
// channel makes.
package platformfake
