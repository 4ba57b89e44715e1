package main

import (
	"bytes"
	"io"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// The benchmark runs every flow on one task and prints each beside its
// target: 4 calls with the model's judgement, 3 by capabilities, and
// nanobot's spawn flow on the same fake. It fails when a flow goes over
// its target, so a run that returns no error is within them.
func TestCostReport(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two hosts for each flow")
	}
	var out bytes.Buffer
	require.NoError(t, run(testkit.Ctx(t), []string{"-tasks", "1", "-prompt-bytes", "2000"}, &out, io.Discard))
	got := out.String()
	for _, row := range []string{
		`switchboard, judge: llm +1 +4 +≤ 4 +\d+`,
		`switchboard, judge: capabilities +1 +3 +≤ 3 +\d+`,
		`switchboard, notices: model +1 +6 +- +\d+`,
		`nanobot spawn \(replayed\) +1 +3 +- +\d+`,
	} {
		assert.Regexp(t, regexp.MustCompile(row), got)
	}
}

// Flags out of range are refused before anything starts.
func TestCostFlags(t *testing.T) {
	for _, args := range [][]string{{"-tasks", "0"}, {"-tasks", "99"}, {"-prompt-bytes", "-1"}} {
		assert.Error(t, run(testkit.Ctx(t), args, io.Discard, io.Discard), "%v", args)
	}
}
