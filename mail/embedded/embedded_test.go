package embedded_test

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/mail/embedded"
)

func TestStartDefaults(t *testing.T) {
	s, err := embedded.Start(&embedded.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	defer s.Close()

	assert.True(t, strings.HasPrefix(s.IMAPAddr(), "127.0.0.1:"), s.IMAPAddr())
	assert.True(t, strings.HasPrefix(s.SMTPAddr(), "127.0.0.1:"), s.SMTPAddr())
	assert.NotEqual(t, s.IMAPAddr(), s.SMTPAddr())
	assert.Equal(t, "referee@pbem.local", s.RefereeAddress())
	var addrs []string
	for _, a := range s.Accounts() {
		addrs = append(addrs, a.Address)
		assert.NotEmpty(t, a.Password)
	}
	assert.Equal(t, []string{"referee@pbem.local", "alice@pbem.local", "bob@pbem.local", "carol@pbem.local", "dave@pbem.local"}, addrs)

	pw, ok := s.Password("referee+anything@pbem.local")
	assert.True(t, ok)
	assert.Equal(t, "referee", pw, "default password is the local part")
	_, ok = s.Password("mallory")
	assert.False(t, ok)

	text := s.Instructions()
	assert.Contains(t, text, s.SMTPAddr())
	assert.Contains(t, text, "referee@pbem.local")
	t.Log("\n" + text)

	require.NoError(t, s.Deliver("alice@pbem.local", []string{"referee+7.x@pbem.local", "bob@pbem.local"}, []byte("Subject: hi\r\n\r\nhello\r\n")))
	st, err := s.Status("referee", "INBOX")
	require.NoError(t, err)
	assert.Equal(t, uint32(1), *st.NumMessages)
	st, err = s.Status("bob@pbem.local", "INBOX")
	require.NoError(t, err)
	assert.Equal(t, uint32(1), *st.NumMessages)
	assert.Error(t, s.Deliver("alice@pbem.local", []string{"x@elsewhere.org"}, []byte("\r\n")))
	assert.Equal(t, 0, s.DropIMAPConnections())
}
