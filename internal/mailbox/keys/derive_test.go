package keys

import (
	"testing"

	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// publicOf derives the public key nkeys derives, for user keys made by
// nkeys and by newUser, and for the other kinds of seed.
func TestPublicOfIsWhatNkeysDerives(t *testing.T) {
	t.Parallel()
	for i := range 300 {
		create := []func() (nkeys.KeyPair, error){nkeys.CreateUser, nkeys.CreateAccount, nkeys.CreateServer}[i%3]
		kp, err := create()
		require.NoError(t, err)
		seed, err := kp.Seed()
		require.NoError(t, err)
		want, err := kp.PublicKey()
		require.NoError(t, err)
		got, err := publicOf(seed)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
}

// A key newUser makes signs what its public key verifies, and the public
// key it returns is the one nkeys derives from its seed.
func TestNewUserSignsForItsPublicKey(t *testing.T) {
	t.Parallel()
	for range 50 {
		kp, pub, err := newUser()
		require.NoError(t, err)
		assert.True(t, nkeys.IsValidPublicUserKey(pub))
		want, err := kp.PublicKey()
		require.NoError(t, err)
		require.Equal(t, want, pub)
		sig, err := kp.Sign([]byte("hello"))
		require.NoError(t, err)
		verifier, err := nkeys.FromPublicKey(pub)
		require.NoError(t, err)
		require.NoError(t, verifier.Verify([]byte("hello"), sig))
	}
}

func TestPublicOfRefusesWhatIsNotASeed(t *testing.T) {
	t.Parallel()
	kp, err := nkeys.CreateUser()
	require.NoError(t, err)
	pub, err := kp.PublicKey()
	require.NoError(t, err)
	seed, err := kp.Seed()
	require.NoError(t, err)
	for _, bad := range [][]byte{nil, []byte("SU"), []byte(pub), append(append([]byte{}, seed[:len(seed)-1]...), 'A')} {
		_, err := publicOf(bad)
		assert.Error(t, err, "%q", bad)
	}
}
