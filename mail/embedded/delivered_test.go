package embedded_test

import (
	"testing"

	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/mail/embedded"
)

// Delivered knows the messages the SMTP server delivered, by envelope
// sender, recipient and Message-ID, also after a restart on the same
// directory; a message appended over IMAP is no delivery.
func TestDelivered(t *testing.T) {
	dir := t.TempDir()
	s, err := embedded.Start(&embedded.Options{Dir: dir, Logger: quiet()})
	require.NoError(t, err)
	ref, _ := s.Password("referee")
	require.NoError(t, send(s.SMTPAddr(), "referee@pbem.local", ref, "referee@pbem.local", "alice@pbem.local",
		message("referee@pbem.local", "alice@pbem.local", "your move")))
	require.NoError(t, s.Deliver("referee@pbem.local", []string{"bob+7@pbem.local"}, message("referee@pbem.local", "bob@pbem.local", "game on")))
	ask := func(s *embedded.Servers) {
		t.Helper()
		for _, c := range []struct {
			from, rcpt, id string
			want           bool
		}{
			{"referee@pbem.local", "alice@pbem.local", "your-move@test", true},
			{"Referee@PBEM.local", "ALICE@pbem.local", "<your-move@test>", true},
			{"referee@pbem.local", "alice+3@pbem.local", "your-move@test", true},
			{"referee@pbem.local", "bob@pbem.local", "game-on@test", true},
			{"referee@pbem.local", "bob@pbem.local", "your-move@test", false},
			{"alice@pbem.local", "alice@pbem.local", "your-move@test", false},
			{"referee@pbem.local", "alice@pbem.local", "other@test", false},
			{"referee@pbem.local", "alice@pbem.local", "", false},
			{"referee@pbem.local", "nobody@pbem.local", "your-move@test", false},
		} {
			assert.Equal(t, c.want, s.Delivered(c.from, c.rcpt, c.id), "%s to %s: %s", c.from, c.rcpt, c.id)
		}
	}
	ask(s)
	require.NoError(t, s.Close())

	s = start(t, dir)
	ask(s)
	// An APPEND over IMAP of a message with a Message-ID is no delivery.
	c, err := imapclient.DialInsecure(s.IMAPAddr(), nil)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.Login("carol@pbem.local", "carol").Wait())
	raw := message("referee@pbem.local", "carol@pbem.local", "appended")
	app := c.Append("INBOX", int64(len(raw)), nil)
	_, err = app.Write(raw)
	require.NoError(t, err)
	require.NoError(t, app.Close())
	_, err = app.Wait()
	require.NoError(t, err)
	assert.False(t, s.Delivered("referee@pbem.local", "carol@pbem.local", "appended@test"))
}

// Without a directory nothing is remembered (nothing survives a restart
// for a client to ask about).
func TestDeliveredInMemory(t *testing.T) {
	s, err := embedded.Start(&embedded.Options{Logger: quiet()})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Deliver("referee@pbem.local", []string{"bob@pbem.local"}, message("referee@pbem.local", "bob@pbem.local", "game on")))
	assert.False(t, s.Delivered("referee@pbem.local", "bob@pbem.local", "game-on@test"))
}
