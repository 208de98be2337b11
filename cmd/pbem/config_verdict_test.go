package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/archive"
	"pbem/mail"
	"pbem/referee"
)

// The keys of sender verdicts and reply copies: defaults, and a wrong
// value named with what was expected.
func TestConfigVerdictAndCopies(t *testing.T) {
	f := filepath.Join(t.TempDir(), "pbem.yaml")
	base := "referee:\n  address: r@x.org\nimap:\n  addr: a:1\nsmtp:\n  addr: b:2\n"
	require.NoError(t, os.WriteFile(f, []byte(base), 0o600))
	c, err := loadConfig(f)
	require.NoError(t, err)
	assert.Equal(t, "answer", c.IMAP.Unauthenticated)
	assert.Equal(t, "", c.IMAP.TrustedAuthservID)
	assert.Equal(t, "on", c.SMTP.Copies)
	assert.Equal(t, 30*time.Second, c.SMTP.CopyWait)
	s := &server{cfg: c}
	assert.Equal(t, "r+sent@x.org", s.copyAddress())

	bad := "referee:\n  address: r@x.org\nimap:\n  addr: a:1\n  unauthenticated: drop\n  trusted_authserv_id: mx.x.org; spf\n" +
		"smtp:\n  addr: b:2\n  copies: yes please\n  copy_to: sent\n"
	require.NoError(t, os.WriteFile(f, []byte(bad), 0o600))
	_, err = loadConfig(f)
	require.Error(t, err)
	for _, want := range []string{
		`imap.unauthenticated "drop": expected answer or ignore`,
		`imap.trusted_authserv_id "mx.x.org; spf": expected one name`,
		`smtp.copies "yes please": expected on or off`,
		`smtp.copy_to "sent": expected an address of the referee's own mailbox`,
	} {
		assert.Contains(t, err.Error(), want)
	}
	require.NoError(t, os.WriteFile(f, []byte(base+"  copy_wait: 2h\n"), 0o600))
	_, err = loadConfig(f)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "smtp.copy_wait: 2h is out of range; expected 1s to 1h0m0s")
}

// A copy of the referee's reply is mail from its own address with a
// Message-ID the referee marked with its secret; nothing else is (issue
// 42: a Message-ID at the referee's domain was enough, so mail forged
// with a reply's id was taken for its copy, and at a takeover its reply
// was recorded as sent; the lookups of copies now ask only for marked
// ids).
func TestIsCopy(t *testing.T) {
	store, err := archive.OpenStore(context.Background(), filepath.Join(t.TempDir(), "pbem.db"), nil)
	require.NoError(t, err)
	defer store.Close()
	ref, err := referee.New(store, &referee.Options{Address: "referee@pbem.example", Secret: []byte("k")})
	require.NoError(t, err)
	other, err := referee.New(store, &referee.Options{Address: "referee@pbem.example", Secret: []byte("another")})
	require.NoError(t, err)
	s := &server{cfg: &Config{}, ref: ref}
	s.cfg.Referee.Address = "referee@pbem.example"
	copies, err := s.newCopies()
	require.NoError(t, err)
	own, forged := ref.MarkedMessageID("pbem.12.abc"), other.MarkedMessageID("pbem.12.abc")
	for _, c := range []struct {
		from, id string
		want     bool
	}{
		{"referee@pbem.example", own, true},
		{"Referee@PBEM.example", own, true},
		{"referee+12.tok@pbem.example", own, true},
		{"referee@pbem.example", "pbem.12.abc@pbem.example", false},
		{"referee@pbem.example", "x@pbem.example", false},
		{"referee@pbem.example", forged, false},
		{"referee@pbem.example", strings.Replace(own, "pbem.example", "elsewhere.example", 1), false},
		{"alice@pbem.example", own, false},
		{"referee@elsewhere.example", own, false},
	} {
		assert.Equal(t, c.want, copies.IsCopy(&mail.Inbound{From: mail.Address{Addr: c.from}, MessageID: c.id}), "From %s, Message-ID %s", c.from, c.id)
	}
	assert.Equal(t, []string{own}, copies.Marked([]string{"pbem.12.abc@pbem.example", own, forged}),
		"the replies looked up among the copies")
}

// The adapter hands the referee the verdict of the trusted server, read
// from the mail as received.
func TestRequestCarriesVerdict(t *testing.T) {
	for _, c := range []struct {
		file, authserv, want string
	}{
		{"gmail-pass.eml", "mx.google.com", "pass"},
		{"dovecot-opendmarc-fail.eml", "mx.pbem.example", "fail"},
		{"forged-below.eml", "mx.pbem.example", "fail"},
		{"forged-other-id.eml", "mx.pbem.example", ""},
		{"none.eml", "mx.pbem.example", ""},
		{"gmail-pass.eml", "", ""},
	} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "mail", "testdata", "authres", c.file))
		require.NoError(t, err)
		in, err := mail.Parse(raw)
		require.NoError(t, err)
		s := &server{cfg: &Config{}}
		s.cfg.IMAP.TrustedAuthservID = c.authserv
		q := s.request(in)
		assert.Equal(t, c.want, q.Verdict, "%s with trusted id %q: reason %q", c.file, c.authserv, q.VerdictReason)
	}
}
