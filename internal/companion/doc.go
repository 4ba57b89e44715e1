// Package companion finds and starts switchboard-full, the program that
// runs the commands the switchboard binary hands over because it was
// built without their large libraries (see cli.Extras), and finds
// switchboard-natsd, the NATS server that demo --backend nats starts (so
// that no agent process links one).
//
// Each is looked for beside the running switchboard (where
// go install ./cmd/... and go build -o DIR/ ./cmd/... put it), then on
// PATH. A program started by go run in a clone of the repository
// builds it instead, from the same source, beside itself in go run's
// temporary folder (the build cache makes that quick after the first
// time), so that go run ./cmd/switchboard demo works as it is.
package companion
