package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"", "abc", 3},
		{"model", "model", 0},
		{"modle", "model", 1}, // adjacent swap
		{"agentid2", "agentid", 1},
		{"kitten", "sitting", 3},
		{"ca", "abc", 3}, // optimal string alignment, not full Damerau
		{"héllo", "hello", 1},
	}
	for _, tt := range tests {
		t.Run(tt.a+"/"+tt.b, func(t *testing.T) {
			assert.Equal(t, tt.want, editDistance(tt.a, tt.b))
			assert.Equal(t, tt.want, editDistance(tt.b, tt.a))
		})
	}
}

func TestClosest(t *testing.T) {
	known := []string{"agentId", "allowFrom", "enabled", "maxConcurrentTasks", "model", "mode"}
	tests := []struct {
		name, key, want string
		ok              bool
	}{
		{name: "case and extra rune", key: "agentID2", want: "agentId", ok: true},
		{name: "case only", key: "AGENTID", want: "agentId", ok: true},
		{name: "missing rune", key: "agntId", want: "agentId", ok: true},
		{name: "swap", key: "enalbed", want: "enabled", ok: true},
		{name: "tie goes to the first in order", key: "modex", want: "mode", ok: true},
		{name: "nothing close", key: "zzz", ok: false},
		{name: "too far for a short key", key: "ab", ok: false},
		{name: "no candidates", key: "x", ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cands := known
			if tt.name == "no candidates" {
				cands = nil
			}
			got, ok := closest(tt.key, cands)
			assert.Equal(t, tt.ok, ok)
			if tt.ok {
				assert.Equal(t, tt.want, got)
			}
		})
	}
}
