package config

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCollectPlainError(t *testing.T) {
	var p problems
	collect(fmt.Errorf("wrapped: %w", errors.New("boom")), "x", &p)
	assert.EqualError(t, p.err(), "x: boom")
}

func TestKeyPath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"a.b", "a.b"},
		{"allowFrom[0]", "allowFrom[0]"},
		{"providers[openai].apiKey", "providers.openai.apiKey"},
		{"m[k][2].x", "m.k[2].x"},
		{"m[a]b]", "m.a]b"},
		{"m[a", "m.a"},
		{"m[]", "m."},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			assert.Equal(t, tt.want, keyPath(tt.in))
		})
	}
}

func TestKeyErrorFormat(t *testing.T) {
	tests := []struct {
		name string
		err  KeyError
		want string
	}{
		{"path only", KeyError{Path: "a.b", Msg: "m"}, "a.b: m"},
		{"source and path", KeyError{Source: "NANOBOT_A__B", Path: "a.b", Msg: "m"}, "NANOBOT_A__B: a.b: m"},
		{"source only", KeyError{Source: "NANOBOT_A___B", Msg: "m"}, "NANOBOT_A___B: m"},
		{"message only", KeyError{Msg: "m"}, "m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.err.Error())
		})
	}
}
