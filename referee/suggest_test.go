package referee

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/engine"
)

func TestWithSuggestions(t *testing.T) {
	codec, err := Lookup("ziggurat43")
	require.NoError(t, err)
	start, err := codec.Rules().Start(engine.Options{})
	require.NoError(t, err)
	for _, c := range []struct{ text, want string }{
		// Illegal: a Spearman steps one square.
		{"Se2-e4", "bad; the legal plies closest to it are Se3-e4, Sd3-e4 and Se2-f2"},
		// Unreadable as typed in a word processor.
		{"Se2–f3", "bad; the legal plies closest to it are Se2-f3, Se2-f2 and Se3-f3"},
		{"hello world", "bad"},
	} {
		got := withSuggestions(codec, start, c.text, mistake(nil, "a ply", "bad"))
		var ue *userError
		require.True(t, errors.As(got, &ue))
		assert.Equal(t, c.want, ue.reason, c.text)
	}
	other := errors.New("not a reply")
	assert.Equal(t, other, withSuggestions(codec, start, "Se2-e4", other))
}
