package main_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// demoTranscript are the lines of the conversation the demo prints, on any
// backend.
var demoTranscript = []string{
	`started researcher \(pid \d+\): Feishu stub at http://127\.0\.0\.1:\d+/feishu/events \+ mailbox`,
	`started coder +\(pid \d+\): mailbox only, capabilities sorting, counting, arithmetic`,
	`POST http://127\.0\.0\.1:\d+/feishu/events`,
	`\d\.\d{3}s  user → researcher +feishu +ask coder to sort 5 3 9 1\n`,
	`researcher → coder +mailbox task +sort 5 3 9 1\n`,
	`researcher → user +feishu +I asked coder to sort 5 3 9 1 \(task task_\S+\)\. I'll tell you when it's done\.\n`,
	`coder → researcher +mailbox task_update accepted\n`,
	`coder → researcher +mailbox task_update completed +1 3 5 9\n`,
	`researcher → user +feishu +coder accepted the task and is working on it\.\n`,
	`researcher → user +feishu +coder finished: 1 3 5 9\n`,
	`the user's chat oc_demo_chat got the answer "1 3 5 9"`,
	`stopped researcher and coder \(exit status 0; offline in the registry: coder, researcher\)\n`,
}

// TestDemoOnNATS runs the demo with both agents on NATS JetStream, on the
// nats-server the demo embeds.
func TestDemoOnNATS(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	dir := filepath.Join(s.home, "demo")
	r := runDemo(t, s, "--backend", "nats", "--dir", dir, "--timeout", "40s")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Empty(t, r.stderr)
	for _, want := range append([]string{
		`folder: \S+ \(configs, logs, NATS store, Feishu outbox\)\n`,
		`\nnats-server \(switchboard-natsd, JetStream in \S+/nats\) listening at nats://127\.0\.0\.1:\d+\n`,
		`both agents are registered online in NATS JetStream at nats://127\.0\.0\.1:\d+\n`,
	}, demoTranscript...) {
		assert.Regexp(t, regexp.MustCompile(want), r.stdout)
	}

	chat := readOutbox(t, filepath.Join(dir, "researcher", "feishu-outbox.jsonl"))
	require.Len(t, chat, 3)
	assert.Equal(t, reply{ChatID: "oc_demo_chat", Content: "coder finished: 1 3 5 9"}, chat[2])
	assert.DirExists(t, filepath.Join(dir, "nats", "jetstream"), "the server stored in the demo's folder")
	assert.NoDirExists(t, filepath.Join(dir, "mailboxes"), "no mailbox folder on NATS")
	for _, agent := range []string{"researcher", "coder"} {
		conf, err := os.ReadFile(filepath.Join(dir, agent+".json"))
		require.NoError(t, err)
		assert.Regexp(t, `"backend": "nats",`, string(conf))
		assert.Regexp(t, `"url": "nats://127\.0\.0\.1:\d+"`, string(conf))
	}
}

// With --nats-url the demo uses that server, and leaves it running.
func TestDemoOnNATSURL(t *testing.T) {
	t.Parallel()
	url := startNATS(t)
	s := newSandbox(t)
	r := runDemo(t, s, "--backend", "nats", "--nats-url", url, "--timeout", "40s")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "folder: ")
	assert.Contains(t, r.stdout, "(configs, logs, Feishu outbox)\nNATS server at "+url+" (--nats-url)\n")
	assert.Contains(t, r.stdout, "both agents are registered online in NATS JetStream at "+url+"\n")
	for _, want := range demoTranscript {
		assert.Regexp(t, regexp.MustCompile(want), r.stdout)
	}
	cards := natsCards(t, url)
	for _, agent := range []string{"researcher", "coder"} {
		require.Contains(t, cards, agent)
		assert.Equal(t, envelope.StatusOffline, cards[agent].Status)
	}
	assert.Empty(t, files(t, filepath.Join(s.home, "tmp")), "the temporary folder is removed")
}

func TestDemoBackendErrors(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	assertOneLineError(t, runDemo(t, s, "--backend", "redis"), 2, `--backend: want fs or nats, got "redis"`)
	assertOneLineError(t, runDemo(t, s, "--nats-url", "nats://127.0.0.1:4222"), 2, "--nats-url goes with --backend nats")
	r := runDemo(t, s, "--backend", "nats", "--nats-url", "nats://127.0.0.1:1")
	assert.Equal(t, 1, r.code, "stderr %q", r.stderr)
	assert.Regexp(t, `^switchboard: connect to NATS at nats://127\.0\.0\.1:1: .+\n$`, r.stderr)
}
