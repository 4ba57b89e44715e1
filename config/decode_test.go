package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sample is a channel config like the mailbox's.
type sample struct {
	Enabled            bool              `json:"enabled"`
	AgentID            string            `json:"agentId"`
	Capabilities       []string          `json:"capabilities"`
	AllowFrom          []string          `json:"allowFrom"`
	MaxConcurrentTasks int               `json:"maxConcurrentTasks"`
	PollInterval       float64           `json:"pollInterval"`
	Heartbeat          time.Duration     `json:"heartbeatInterval"`
	MaxMessageBytes    uint32            `json:"maxMessageBytes"`
	Small              int8              `json:"small"`
	Ports              []int             `json:"ports"`
	Limits             map[string]int    `json:"limits"`
	Peers              []peer            `json:"peers"`
	Extra              map[string]any    `json:"extra"`
	Retry              *retry            `json:"retry"`
	Labels             map[string]string `json:"labels,omitempty"`
	Untagged           string
	embedded
	//lint:ignore U1000 never set: it proves unexported fields are unknown keys
	hidden string
}

type peer struct {
	ID   string `json:"id"`
	Role string `json:"role"`
}

type retry struct {
	Attempts int `json:"attempts"`
}

type embedded struct {
	Backend string `json:"backend"`
}

func defaultSample() sample {
	return sample{
		AllowFrom:          []string{"*"},
		MaxConcurrentTasks: 3,
		PollInterval:       5,
		Heartbeat:          5 * time.Second,
		MaxMessageBytes:    1 << 20,
		Limits:             map[string]int{"a": 1},
		embedded:           embedded{Backend: "fs"},
	}
}

func TestDecodeValues(t *testing.T) {
	tests := []struct {
		name string
		raw  map[string]any
		want func(s *sample)
	}{
		{name: "nothing keeps the defaults", raw: map[string]any{}, want: func(*sample) {}},
		{name: "JSON values", raw: map[string]any{
			"enabled": true, "agentId": "coder", "allowFrom": []any{"a", "b"},
			"maxConcurrentTasks": 5.0, "pollInterval": 0.5, "heartbeatInterval": 1.5,
			"maxMessageBytes": 2048.0, "ports": []any{80.0, 443.0},
			"peers":    []any{map[string]any{"id": "p", "role": "r"}},
			"extra":    map[string]any{"anything": []any{1.0}},
			"retry":    map[string]any{"attempts": 2.0},
			"limits":   map[string]any{"b": 2.0},
			"Untagged": "u", "backend": "nats",
		}, want: func(s *sample) {
			s.Enabled, s.AgentID, s.AllowFrom = true, "coder", []string{"a", "b"}
			s.MaxConcurrentTasks, s.PollInterval, s.Heartbeat = 5, 0.5, 1500*time.Millisecond
			s.MaxMessageBytes, s.Ports = 2048, []int{80, 443}
			s.Peers = []peer{{ID: "p", Role: "r"}}
			s.Extra = map[string]any{"anything": []any{1.0}}
			s.Retry = &retry{Attempts: 2}
			s.Limits = map[string]int{"b": 2} // replaces the default map, no merge
			s.Untagged, s.Backend = "u", "nats"
		}},
		{name: "snake_case keys", raw: map[string]any{
			"agent_id": "coder", "max_concurrent_tasks": 7.0, "allow_from": []any{"x"},
		}, want: func(s *sample) {
			s.AgentID, s.MaxConcurrentTasks, s.AllowFrom = "coder", 7, []string{"x"}
		}},
		{name: "strings as the environment gives them", raw: map[string]any{
			"enabled": "TRUE", "maxConcurrentTasks": " 5 ", "pollInterval": "2.5",
			"heartbeatInterval": "10", "maxMessageBytes": "1024", "small": "-8",
			"ports": "80, 443", "allowFrom": "a, b,,", "capabilities": "",
			"peers": `[{"id":"p","role":"r"}]`,
		}, want: func(s *sample) {
			s.Enabled, s.MaxConcurrentTasks, s.PollInterval = true, 5, 2.5
			s.Heartbeat, s.MaxMessageBytes, s.Small = 10*time.Second, 1024, -8
			s.Ports, s.AllowFrom, s.Capabilities = []int{80, 443}, []string{"a", "b"}, []string{}
			s.Peers = []peer{{ID: "p", Role: "r"}}
		}},
		{name: "JSON list in a string", raw: map[string]any{"allowFrom": ` ["a", "b"] `, "ports": "[1, 2]"},
			want: func(s *sample) { s.AllowFrom, s.Ports = []string{"a", "b"}, []int{1, 2} }},
		{name: "false and whole-number strings", raw: map[string]any{"enabled": "false", "maxConcurrentTasks": "4.0"},
			want: func(s *sample) { s.MaxConcurrentTasks = 4 }},
		{name: "go-typed values", raw: map[string]any{"maxConcurrentTasks": 6, "pollInterval": uint8(3), "maxMessageBytes": uint(9), "small": int64(7)},
			want: func(s *sample) { s.MaxConcurrentTasks, s.PollInterval, s.MaxMessageBytes, s.Small = 6, 3, 9, 7 }},
		{name: "null clears", raw: map[string]any{"allowFrom": nil}, want: func(s *sample) { s.AllowFrom = nil }},
		{name: "JSON object keys in a string list are normalised",
			raw:  map[string]any{"peers": `[{"id":"p","role":"r"}]`},
			want: func(s *sample) { s.Peers = []peer{{ID: "p", Role: "r"}} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, want := defaultSample(), defaultSample()
			tt.want(&want)
			require.NoError(t, Decode(tt.raw, "channels.sample", &got))
			assert.Equal(t, want, got)
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name string
		raw  map[string]any
		want []string
		is   error
	}{
		{name: "bad number", raw: map[string]any{"maxConcurrentTasks": "three"},
			want: []string{`x.maxConcurrentTasks: want a number, got "three"`}},
		{name: "number is a bool", raw: map[string]any{"pollInterval": true},
			want: []string{`x.pollInterval: want a number, got true`}},
		{name: "infinite number", raw: map[string]any{"pollInterval": "inf"},
			want: []string{`x.pollInterval: want a finite number, got "inf"`}},
		{name: "non-integral int", raw: map[string]any{"maxConcurrentTasks": 2.5},
			want: []string{`x.maxConcurrentTasks: want a whole number, got 2.5`}},
		{name: "non-integral int from a string", raw: map[string]any{"maxConcurrentTasks": "2.5"},
			want: []string{`x.maxConcurrentTasks: want a whole number, got "2.5"`}},
		{name: "int is a list", raw: map[string]any{"maxConcurrentTasks": []any{}},
			want: []string{`x.maxConcurrentTasks: want a whole number, got a list`}},
		{name: "int overflow", raw: map[string]any{"small": 300.0},
			want: []string{`x.small: want a whole number that fits in int8, got 300`}},
		{name: "int overflow from a string", raw: map[string]any{"small": "300"},
			want: []string{`x.small: want a whole number that fits in int8, got "300"`}},
		{name: "int beyond int64", raw: map[string]any{"maxConcurrentTasks": 1e20},
			want: []string{`x.maxConcurrentTasks: want a whole number that fits in int, got 1e+20`}},
		{name: "int from a huge uint", raw: map[string]any{"maxConcurrentTasks": uint64(1 << 63)},
			want: []string{`x.maxConcurrentTasks: want a whole number that fits in int, got 9223372036854775808`}},
		{name: "negative uint", raw: map[string]any{"maxMessageBytes": -1.0},
			want: []string{`x.maxMessageBytes: want a whole number of 0 or more, got -1`}},
		{name: "uint overflow", raw: map[string]any{"maxMessageBytes": 5e9},
			want: []string{`x.maxMessageBytes: want a whole number that fits in uint32, got 5e+09`}},
		{name: "uint not a number", raw: map[string]any{"maxMessageBytes": "big"},
			want: []string{`x.maxMessageBytes: want a number, got "big"`}},
		{name: "bad bool", raw: map[string]any{"enabled": "yes"},
			want: []string{`x.enabled: want true or false, got "yes"`}},
		{name: "bool is a number", raw: map[string]any{"enabled": 1.0},
			want: []string{`x.enabled: want true or false, got 1`}},
		{name: "string is a number", raw: map[string]any{"agentId": 7.0},
			want: []string{`x.agentId: want a string, got 7`}},
		{name: "list of wrong type", raw: map[string]any{"allowFrom": []any{"a", 1.0, false}},
			want: []string{`x.allowFrom[1]: want a string, got 1`, `x.allowFrom[2]: want a string, got false`}},
		{name: "list is an object", raw: map[string]any{"allowFrom": map[string]any{}},
			want: []string{`x.allowFrom: want a list, got an object`}},
		{name: "list is a number", raw: map[string]any{"allowFrom": 3.0},
			want: []string{`x.allowFrom: want a list, got 3`}},
		{name: "bad JSON list", raw: map[string]any{"allowFrom": `["a"`},
			want: []string{`x.allowFrom: want a list, got "[\"a\"" (not valid JSON: unexpected end of JSON input)`}},
		{name: "bad items in a string list", raw: map[string]any{"ports": "80,http"},
			want: []string{`x.ports[1]: want a number, got "http"`}},
		{name: "object is a string", raw: map[string]any{"retry": "x"},
			want: []string{`x.retry: want an object, got "x"`}},
		{name: "map is a list", raw: map[string]any{"limits": []any{}},
			want: []string{`x.limits: want an object, got a list`}},
		{name: "map value has a map-index path", raw: map[string]any{"limits": map[string]any{"b": "two"}},
			want: []string{`x.limits.b: want a number, got "two"`}},
		{name: "duration", raw: map[string]any{"heartbeatInterval": "soon"},
			want: []string{`x.heartbeatInterval: want a number of seconds, got "soon"`}},
		{name: "duration overflow", raw: map[string]any{"heartbeatInterval": 1e12},
			want: []string{`x.heartbeatInterval: want a number of seconds that fits in a duration, got 1e+12`}},
		{name: "unknown key with suggestion", raw: map[string]any{"agentID2": "a"},
			want: []string{`x.agentID2: unknown key (did you mean "agentId"?)`}, is: ErrUnknownKey},
		{name: "unknown key without suggestion", raw: map[string]any{"zzz": 1.0},
			want: []string{`x.zzz: unknown key`}, is: ErrUnknownKey},
		{name: "unexported field is unknown", raw: map[string]any{"hidden": "h"},
			want: []string{`x.hidden: unknown key`}, is: ErrUnknownKey},
		{name: "unknown keys deep inside", raw: map[string]any{
			"retry": map[string]any{"atempts": 1.0},
			"peers": []any{map[string]any{"id": "a"}, map[string]any{"rol": "b"}},
		}, want: []string{
			`x.peers[1].rol: unknown key (did you mean "role"?)`,
			`x.retry.atempts: unknown key (did you mean "attempts"?)`,
		}, is: ErrUnknownKey},
		{name: "unknown key inside a JSON list string", raw: map[string]any{"peers": `[{"idd":"a"}]`},
			want: []string{`x.peers[0].idd: unknown key (did you mean "id"?)`}, is: ErrUnknownKey},
		{name: "snake and camel twice", raw: map[string]any{"agent_id": "a", "agentId": "b"},
			want: []string{`x.agentId: set twice, as "agentId" and "agent_id"`}, is: ErrDuplicateKey},
		{name: "all errors at once, sorted by path", raw: map[string]any{
			"zzz": 1.0, "enabled": "yes", "agentID2": "a", "maxConcurrentTasks": "three",
			"allowFrom": []any{1.0},
		}, want: []string{
			`x.agentID2: unknown key (did you mean "agentId"?)`,
			`x.allowFrom[0]: want a string, got 1`,
			`x.enabled: want true or false, got "yes"`,
			`x.maxConcurrentTasks: want a number, got "three"`,
			`x.zzz: unknown key`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := defaultSample()
			err := Decode(tt.raw, "x", &s)
			assert.Equal(t, tt.want, errLines(err))
			is := tt.is
			if is == nil {
				is = ErrInvalidValue
			}
			assert.ErrorIs(t, err, is)
			var ke *KeyError
			assert.ErrorAs(t, err, &ke)
		})
	}
}

func TestDecodeWithoutPrefix(t *testing.T) {
	s := defaultSample()
	err := Decode(map[string]any{"enabled": "no"}, "", &s)
	assert.EqualError(t, err, `enabled: want true or false, got "no"`)
}

func TestDecodeNeedsAPointer(t *testing.T) {
	var nilPtr *sample
	tests := []struct {
		name string
		out  any
		want string
	}{
		{"value", sample{}, `config: decode "x" into config.sample: result must be a pointer`},
		{"nil pointer", nilPtr, `config: decode "x" into *config.sample: result must be addressable (a pointer)`},
		{"nil", nil, `config: decode "x" into <nil>: result must be a pointer`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.EqualError(t, Decode(map[string]any{}, "x", tt.out), tt.want)
			assert.EqualError(t, Section{Path: "x"}.Decode(tt.out), tt.want)
		})
	}
}

func TestDecodeNonStructTarget(t *testing.T) {
	var n int
	err := Decode(map[string]any{"a": 1.0}, "x", &n)
	assert.EqualError(t, err, `x: want a whole number, got an object`)

	var m map[string]int
	require.NoError(t, Decode(map[string]any{"a": 1.0}, "x", &m))
	assert.Equal(t, map[string]int{"a": 1}, m)
}
