package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// odd has fields of kinds the decode hook leaves to mapstructure.
type odd struct {
	C    complex128 `json:"c"`
	Pair [2]int     `json:"pair"`
	F32  float32    `json:"f32"`
	Name            // an embedded non-struct is an ordinary field
}

// Name is a named string type, embedded in odd.
type Name string

func TestDecodeMapstructureErrors(t *testing.T) {
	tests := []struct {
		name string
		raw  map[string]any
		want string
	}{
		{"unconvertible", map[string]any{"c": "x"}, `x.c: want complex128, got "x"`},
		{"other", map[string]any{"pair": []any{1.0, 2.0, 3.0}}, `x.pair: expected source data to have length less or equal to 2, got 3`},
		{"embedded non-struct", map[string]any{"Name": 1.0}, `x.Name: want a string, got 1`},
		{"float32 overflow", map[string]any{"f32": 1e39}, `x.f32: want a number that fits in float32, got 1e+39`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var o odd
			assert.EqualError(t, Decode(tt.raw, "x", &o), tt.want)
		})
	}
}

func TestShow(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{nil, "null"},
		{"a\"b", `"a\"b"`},
		{2.5, "2.5"},
		{1e21, "1e+21"},
		{true, "true"},
		{7, "7"},
		{[]any{1}, "a list"},
		{[]string{"a"}, "a list"},
		{[2]int{}, "a list"},
		{map[string]any{}, "an object"},
		{struct{}{}, "an object"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, show(tt.in))
		})
	}
}

func TestDecodeGoIntoFloat(t *testing.T) {
	var o odd
	require.NoError(t, Decode(map[string]any{"f32": 2}, "x", &o))
	assert.Equal(t, float32(2), o.F32)
}
