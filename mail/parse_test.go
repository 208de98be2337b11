package mail_test

import (
	netmail "net/mail"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/mail"
)

func crlf(s string) []byte {
	return []byte(strings.ReplaceAll(strings.TrimPrefix(s, "\n"), "\n", "\r\n"))
}

func TestParseHeaders(t *testing.T) {
	raw := crlf(`
Return-Path: <alice@example.org>
Delivered-To: referee+12.k7x9q@pbem.example
Received: from mx by host; Mon, 1 Jan 2024 10:00:00 +0000
From: =?utf-8?q?Al=C3=AFce_Liddell?= <alice@example.org>
To: "The Referee" <referee+12.k7x9q@pbem.example>, bob@example.org
Cc: Carol <carol@example.org>
Reply-To: alice.games@example.org
Subject: =?iso-8859-1?q?Partie_n=B0_12?= =?utf-8?b?IOKAlCBtb3Zl?=
Date: Mon, 01 Jan 2024 10:00:00 +0100
Message-ID: <abc.123@example.org>
In-Reply-To: <reply-1@pbem.example>
References: <start@pbem.example>
 <reply-1@pbem.example>
Content-Type: text/plain; charset=utf-8

e4 e5
`)
	in, err := mail.Parse(raw)
	require.NoError(t, err)
	assert.Equal(t, mail.Address{Name: "Alïce Liddell", Addr: "alice@example.org"}, in.From)
	assert.Equal(t, []mail.Address{{Name: "The Referee", Addr: "referee+12.k7x9q@pbem.example"}, {Addr: "bob@example.org"}}, in.To)
	assert.Equal(t, []mail.Address{{Name: "Carol", Addr: "carol@example.org"}}, in.Cc)
	assert.Equal(t, []mail.Address{{Addr: "alice.games@example.org"}}, in.ReplyTo)
	assert.Equal(t, "referee+12.k7x9q@pbem.example", in.DeliveredTo)
	assert.Equal(t, "Partie n° 12 — move", in.Subject)
	assert.Equal(t, "abc.123@example.org", in.MessageID)
	assert.Equal(t, "<abc.123@example.org>", in.Key())
	assert.Equal(t, "reply-1@pbem.example", in.InReplyTo)
	assert.Equal(t, []string{"start@pbem.example", "reply-1@pbem.example"}, in.References)
	assert.True(t, in.Date.Equal(time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)), "Date = %v", in.Date)
	assert.Equal(t, "e4 e5\n", in.Text)
	assert.Equal(t, raw, in.Raw)
}

func TestParseDeliveredTo(t *testing.T) {
	tests := []struct {
		name, header, want string
	}{
		{"delivered-to", "Delivered-To: referee+7.x@h\nX-Original-To: other@h\nTo: to@h\n", "referee+7.x@h"},
		{"x-original-to", "X-Original-To: <referee+8.y@h>\nTo: to@h\n", "referee+8.y@h"},
		{"to", "To: Ref <referee+9.z@h>, b@h\n", "referee+9.z@h"},
		{"cc", "Cc: referee@h\n", "referee@h"},
		{"none", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := mail.Parse(crlf("From: a@h\n" + tt.header + "\nhi\n"))
			require.NoError(t, err)
			assert.Equal(t, tt.want, in.DeliveredTo)
		})
	}
}

func TestParseBody(t *testing.T) {
	tests := []struct {
		name, msg, want string
	}{
		{"plain 7bit", `
Content-Type: text/plain

1. e4
`, "1. e4\n"},
		{"no content-type", `

hello
`, "hello\n"},
		{"quoted-printable latin1", `
Content-Type: text/plain; charset=iso-8859-1
Content-Transfer-Encoding: quoted-printable

Caf=E9 au lait, a very long line that was soft-=
wrapped
`, "Café au lait, a very long line that was soft-wrapped\n"},
		{"base64 utf-8", `
Content-Type: text/plain; charset="UTF-8"
Content-Transfer-Encoding: base64

0YXQvtC0IGU0Cg==
`, "ход e4\n"},
		{"windows-1252", `
Content-Type: text/plain; charset=windows-1252
Content-Transfer-Encoding: quoted-printable

=93resign=94
`, "\u201cresign\u201d\n"},
		{"unknown charset kept as text", `
Content-Type: text/plain; charset=x-unheard-of

plain ascii
`, "plain ascii\n"},
		{"alternative prefers plain", `
MIME-Version: 1.0
Content-Type: multipart/alternative; boundary="b1"

--b1
Content-Type: text/html; charset=utf-8

<p>from <b>HTML</b></p>
--b1
Content-Type: text/plain; charset=utf-8

from plain
--b1--
`, "from plain"},
		{"alternative html only", `
Content-Type: multipart/alternative; boundary=b1

--b1
Content-Type: text/html; charset=utf-8
Content-Transfer-Encoding: quoted-printable

<html><head><style>p {color: red}</style></head><body><p>Nf3 &amp; Nc6</p><div>draw?<br>yes</div><ul><li>one</li><li>two</li></ul></body></html>
--b1--
`, "Nf3 & Nc6\ndraw?\nyes\n- one\n- two"},
		{"mixed with attachment", `
Content-Type: multipart/mixed; boundary="outer"

--outer
Content-Type: multipart/alternative; boundary="inner"

--inner
Content-Type: text/plain

move d4
--inner
Content-Type: text/html

<p>move d4</p>
--inner--
--outer
Content-Type: application/pdf
Content-Disposition: attachment; filename=x.pdf
Content-Transfer-Encoding: base64

JVBERi0=
--outer
Content-Type: text/plain
Content-Disposition: attachment; filename=notes.txt

not the body
--outer--
`, "move d4"},
		{"html pre keeps the board", `
Content-Type: text/html

<pre>
 a b
1 . X
</pre>
`, " a b\n1 . X"},
		{"signature kept", `
Content-Type: text/plain

e4
-- 
Alice
`, "e4\n-- \nAlice\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := mail.Parse(crlf("From: a@h\n" + strings.TrimPrefix(tt.msg, "\n")))
			require.NoError(t, err)
			assert.Equal(t, tt.want, in.Text)
		})
	}
}

func TestParseBroken(t *testing.T) {
	tests := []struct {
		name, msg, reason string
	}{
		{"no from", "To: r@h\n\nhi\n", "missing From"},
		{"bad from", "From: <<<>>>\n\nhi\n", "malformed From"},
		{"multipart without boundary", "From: a@h\nContent-Type: multipart/mixed\n\nhi\n", "multipart without boundary"},
		{"unterminated multipart", "From: a@h\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nhi\n", "unterminated multipart"},
		{"bad base64", "From: a@h\nContent-Transfer-Encoding: base64\n\n!!!not base64!!!\n", "undecodable text/plain"},
		{"unknown encoding", "From: a@h\nContent-Transfer-Encoding: x-uuencode\n\nbegin\n", "unknown transfer encoding"},
		{"malformed header", "From a@h\nno colon here\n\nbody\n", "malformed header"},
		{"bad content-type", "From: a@h\nContent-Type: multipart/mixed; boundary=\"b\n\nx\n", "malformed Content-Type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := mail.Parse(crlf(tt.msg))
			require.Error(t, err)
			var perr *mail.ParseError
			require.ErrorAs(t, err, &perr)
			assert.Contains(t, perr.Reason, tt.reason)
			assert.True(t, mail.IsPermanent(err), "IsPermanent(%v) = false", err)
			require.NotNil(t, in)
			assert.Equal(t, crlf(tt.msg), in.Raw)
		})
	}
}

// A message whose body is broken still yields its sender, so that a reply
// can explain.
func TestParseBrokenKeepsSender(t *testing.T) {
	in, err := mail.Parse(crlf("From: Alice <a@h>\nMessage-ID: <m1@h>\nContent-Type: multipart/mixed\n\nx\n"))
	require.Error(t, err)
	assert.Equal(t, "a@h", in.From.Addr)
	assert.Equal(t, "m1@h", in.MessageID)
}

func TestKeyWithoutMessageID(t *testing.T) {
	a, err := mail.Parse(crlf("From: a@h\n\none\n"))
	require.NoError(t, err)
	b, err := mail.Parse(crlf("From: a@h\n\ntwo\n"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(a.Key(), "sha256:"), a.Key())
	assert.NotEqual(t, a.Key(), b.Key())
	a2, _ := mail.Parse(crlf("From: a@h\n\none\n"))
	assert.Equal(t, a.Key(), a2.Key())
}

func TestPermanent(t *testing.T) {
	assert.Nil(t, mail.Permanent(nil))
	base := assert.AnError
	p := mail.Permanent(base)
	assert.True(t, mail.IsPermanent(p))
	assert.ErrorIs(t, p, base)
	assert.Equal(t, base.Error(), p.Error())
	assert.False(t, mail.IsPermanent(base))
	assert.False(t, mail.IsPermanent(nil))
}

func TestParseAutomaticFacts(t *testing.T) {
	raw := "Return-Path: <>\r\nFrom: MAILER-DAEMON@example.org\r\nTo: referee@pbem.local\r\n" +
		"Auto-Submitted: Auto-Replied; owner=x\r\nPrecedence: Bulk\r\nX-Autoreply: yes\r\nList-Id: <l.example.org>\r\n" +
		"Content-Type: multipart/report; report-type=delivery-status; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nfailed\r\n--b--\r\n"
	in, err := mail.Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if in.AutoSubmitted != "auto-replied" || in.Precedence != "bulk" || !in.XAutoreply || !in.ListID || !in.NullSender || in.ContentType != "multipart/report" {
		t.Fatalf("facts = %q %q %v %v %v %q", in.AutoSubmitted, in.Precedence, in.XAutoreply, in.ListID, in.NullSender, in.ContentType)
	}
	in, err = mail.Parse([]byte("From: a@example.org\r\nTo: b@example.org\r\n\r\nhi\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if in.AutoSubmitted != "" || in.Precedence != "" || in.XAutoreply || in.ListID || in.NullSender {
		t.Fatalf("a plain message looks automatic: %+v", in)
	}
}

// TestParseDate: a Date in the form most clients write is read at once,
// any other through net/mail, and each gives the instant and offset
// net/mail gives; one that does not read leaves Date zero.
func TestParseDate(t *testing.T) {
	for _, d := range []string{
		"Thu, 26 Nov 2026 19:01:46 +0000",
		"Thu, 26 Nov 2026 19:01:46 -0700",
		"Thu, 26 Nov 2026 19:01:46 +0530 (IST)",
		"Thu, 6 Nov 2026 09:01:46 +0100",
		"26 Nov 2026 19:01:46 +0100",
		"Thu, 26 Nov 2026 19:01 GMT",
		"  Thu, 26 Nov 2026 19:01:46 +0000  ",
		"yesterday",
	} {
		in, err := mail.Parse([]byte("From: a@example.org\r\nDate: " + d + "\r\nSubject: x\r\n\r\nbody\r\n"))
		require.NoError(t, err)
		want, err := netmail.ParseDate(strings.TrimSpace(d))
		if err != nil {
			assert.True(t, in.Date.IsZero(), "%q does not read, yet Date is %v", d, in.Date)
			continue
		}
		assert.True(t, want.Equal(in.Date), "%q: %v, want %v", d, in.Date, want)
		_, off := in.Date.Zone()
		_, wantOff := want.Zone()
		assert.Equal(t, wantOff, off, "%q: the offset", d)
	}
}
