package scripted_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop/provider/scripted"
)

func TestWork(t *testing.T) {
	for _, tt := range []struct {
		work, want string
	}{
		{"sort 5 3 9 1", "1 3 5 9"},
		{"Sort 10, 9, -2.5, 0", "-2.5 0 9 10"},
		{"sort 2 10 1", "1 2 10"},
		{"sort pear Apple banana", "Apple banana pear"},
		{"sort b 2 a", "2 a b"},
		{"sort 5 3 9 1.", "1 3 5 9"},
		{"count words in the quick brown fox", "4"},
		{"count words of  a  b ", "2"},
		{`count "one two three"`, "3"},
		{"compute 1+2*3", "7"},
		{"calculate (1 + 2) * 3", "9"},
		{"compute 7/2", "3.5"},
		{"compute 1/3", "0.3333333333333333"},
		{"compute -4 + +1", "-3"},
		{"compute 2.5*2", "5"},
		{"compute 010 + 1", "11"},
		{"compute 0.1+0.2", "0.3"},
		{"compute 6 × 7", "42"},
		{"compute 99999999999999999999 * 10", "999999999999999999990"},
	} {
		t.Run(tt.work, func(t *testing.T) {
			got, err := scripted.Work(tt.work)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestWorkErrors(t *testing.T) {
	for _, tt := range []struct {
		work, want string
		unknown    bool
	}{
		{"compute 1/0", "division by zero", false},
		{"compute 4 / (2 - 2)", "division by zero", false},
		{"compute 2^3", "unsupported operator ^", false},
		{"compute 2 % 3", "unsupported operator %", false},
		{"compute x + 1", "unsupported expression", false},
		{"compute 1e9", "unsupported number 1e9", false},
		{"compute 0x10", "unsupported number 0x10", false},
		{"compute f(1)", "unsupported expression", false},
		{"compute (1", "cannot read", false},
		{"compute", "no expression", false},
		{"compute " + strings.Repeat("1+", 150) + "1", "longer than 200", false},
		{"sort", "nothing to sort", false},
		{"count words in", "no text", false},
		{"paint the fence", "I do not know how to paint", true},
		{"", "no work given", true},
	} {
		t.Run(tt.work, func(t *testing.T) {
			_, err := scripted.Work(tt.work)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Equal(t, tt.unknown, errorsIsUnknown(err))
		})
	}
}

func TestCapabilityOf(t *testing.T) {
	for work, want := range map[string][2]string{
		"sort 1 2":       {"sorting", "sort"},
		"Count words in": {"counting", "count"},
		"compute 1":      {"arithmetic", "compute"},
		"calculate 2":    {"arithmetic", "calculate"},
		"write a poem":   {"", "write"},
		"  SORT: a b":    {"sorting", "sort"},
		"":               {"", ""},
	} {
		capability, verb := scripted.CapabilityOf(work)
		assert.Equal(t, want, [2]string{capability, verb}, work)
	}
}
