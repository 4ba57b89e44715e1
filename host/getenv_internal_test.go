package host

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestGetenv(t *testing.T) {
	env := []string{"A=1", "B=2=3", "A=4", "C"}
	assert.Equal(t, "4", getenv(env, "A"))
	assert.Equal(t, "2=3", getenv(env, "B"))
	assert.Equal(t, "", getenv(env, "C"))
	assert.Equal(t, "", getenv(env, "D"))
}
