package archive

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSecret: a secret is made once, kept across reopening, and one per
// name.
func TestSecret(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		dir := fresh(t, where)
		s := open(t, dir)
		a, err := s.Secret(ctx, "referee")
		require.NoError(t, err)
		require.Len(t, a, SecretSize)
		require.False(t, bytes.Equal(a, make([]byte, SecretSize)), "secret is all zeros")
		b, err := s.Secret(ctx, "other")
		require.NoError(t, err)
		require.NotEqual(t, a, b, "two names share a secret")
		require.NoError(t, s.Close())
		s = open(t, dir)
		again, err := s.Secret(ctx, "referee")
		require.NoError(t, err)
		require.Equal(t, a, again, "the secret changed when the store was opened again")
	})
}
