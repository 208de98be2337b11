package mail_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/mail"
)

var date = time.Date(2024, 3, 1, 12, 30, 0, 0, time.FixedZone("", 3600))

func TestCompose(t *testing.T) {
	o := &mail.Outgoing{
		From:       mail.Address{Name: "pbem referee", Addr: "referee@pbem.local"},
		To:         []mail.Address{{Name: "Alice", Addr: "alice@pbem.local"}},
		ReplyTo:    &mail.Address{Addr: "referee+12.k7x9q@pbem.local"},
		Subject:    "Re: game 12",
		Date:       date,
		MessageID:  "r1@pbem.local",
		InReplyTo:  "m1@example.org",
		References: []string{"m0@example.org", "m1@example.org"},
		Text:       "Move accepted.\n\n   a b\n 1 . X   \n-- \npbem\n",
	}
	want := strings.Join([]string{
		"From: \"pbem referee\" <referee@pbem.local>",
		"To: \"Alice\" <alice@pbem.local>",
		"Reply-To: <referee+12.k7x9q@pbem.local>",
		"Subject: Re: game 12",
		"Date: Fri, 01 Mar 2024 12:30:00 +0100",
		"Message-Id: <r1@pbem.local>",
		"In-Reply-To: <m1@example.org>",
		"References: <m0@example.org> <m1@example.org>",
		"Mime-Version: 1.0",
		"Content-Type: text/plain; charset=utf-8",
		"Content-Transfer-Encoding: 7bit",
		"",
		"Move accepted.",
		"",
		"   a b",
		" 1 . X   ",
		"-- ",
		"pbem",
		"",
	}, "\r\n")
	got := mail.Compose(o)
	assert.Equal(t, want, string(got))
	assert.Equal(t, got, mail.Compose(o), "Compose is not deterministic")
}

func TestComposeRoundTrip(t *testing.T) {
	tests := []struct {
		name, text, cte string
	}{
		{"ascii", "e4 e5\n-- \nsig\n", "7bit"},
		{"utf-8", "Échec et mat — ход\n-- \nAlïce\n", "8bit"},
		{"long line", strings.Repeat("x", 1200) + "\n-- \n", "base64"},
		{"crlf and cr", "a\r\nb\rc\n", "7bit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &mail.Outgoing{
				From:      mail.Address{Name: "Réf\r\nBcc: evil@x", Addr: "referee@pbem.local"},
				To:        []mail.Address{{Name: "Bob, Jr.", Addr: "bob@pbem.local"}, {Addr: "carol@pbem.local"}},
				Cc:        []mail.Address{{Addr: "dave@pbem.local"}},
				Subject:   "Ünïcode subject\r\nBcc: injected@x that is long enough to need folding across lines, surely",
				Date:      date,
				MessageID: "id-1@pbem.local",
				Text:      tt.text,
			}
			raw := mail.Compose(o)
			assert.Contains(t, string(raw), "Content-Transfer-Encoding: "+tt.cte+"\r\n")
			assert.NotContains(t, string(raw), "\nBcc:")
			for _, line := range strings.Split(string(raw), "\r\n") {
				assert.LessOrEqual(t, len(line), 998)
				assert.NotContains(t, line, "\r")
				assert.NotContains(t, line, "\n")
			}
			in, err := mail.Parse(raw)
			require.NoError(t, err)
			assert.Equal(t, "Réf  Bcc: evil@x", in.From.Name)
			assert.Equal(t, "referee@pbem.local", in.From.Addr)
			assert.Equal(t, []mail.Address{{Name: "Bob, Jr.", Addr: "bob@pbem.local"}, {Addr: "carol@pbem.local"}}, in.To)
			assert.Equal(t, "Ünïcode subject  Bcc: injected@x that is long enough to need folding across lines, surely", in.Subject)
			assert.Equal(t, "id-1@pbem.local", in.MessageID)
			want := strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(tt.text)
			assert.Equal(t, want, in.Text)
			assert.Equal(t, []string{"bob@pbem.local", "carol@pbem.local", "dave@pbem.local"}, o.Recipients())
		})
	}
}

func TestNewMessageID(t *testing.T) {
	a, b := mail.NewMessageID("pbem.local"), mail.NewMessageID("pbem.local")
	assert.NotEqual(t, a, b)
	assert.Regexp(t, `^[0-9a-f]{24}@pbem\.local$`, a)
}
