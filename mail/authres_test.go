package mail_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/mail"
)

// TestAuthenticate reads the fixtures in testdata/authres as the receiving
// server with the given authserv-id: only the topmost field carrying that
// id counts; one further down, or from another id, is anyone's writing.
func TestAuthenticate(t *testing.T) {
	for _, tc := range []struct {
		file, authserv string
		want           mail.Verdict
	}{
		{"gmail-pass.eml", "mx.google.com", mail.VerdictPass},
		{"gmail-pass.eml", "mx.pbem.example", mail.VerdictNone}, // another server's fields
		{"gmail-pass.eml", "", mail.VerdictNone},                // not configured
		{"dovecot-opendmarc-fail.eml", "mx.pbem.example", mail.VerdictFail},
		{"fastmail-dkim-aligned.eml", "mx3.messagingengine.com", mail.VerdictPass},
		{"fastmail-dkim-aligned.eml", "*.messagingengine.com", mail.VerdictPass},
		{"fastmail-dkim-aligned.eml", "*.engine.com", mail.VerdictNone},
		{"fastmail-dkim-aligned.eml", "mx1.messagingengine.com", mail.VerdictNone},
		{"m365-spf-aligned.eml", mail.NoAuthservID, mail.VerdictPass},
		{"m365-spf-aligned.eml", "spf=pass", mail.VerdictNone},
		{"unaligned.eml", "mx.pbem.example", mail.VerdictFail},
		{"none.eml", "mx.pbem.example", mail.VerdictNone},
		{"trusted-none.eml", "mx.pbem.example", mail.VerdictNone},
		// A pass written by the sender below the server's own fail.
		{"forged-below.eml", "mx.pbem.example", mail.VerdictFail},
		{"forged-below.eml", "MX.PBEM.EXAMPLE", mail.VerdictFail},
		// A pass from another id: no verdict from the trusted server.
		{"forged-other-id.eml", "mx.pbem.example", mail.VerdictNone},
	} {
		t.Run(tc.file+"/"+tc.authserv, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", "authres", tc.file))
			require.NoError(t, err)
			in, err := mail.Parse(raw)
			require.NoError(t, err)
			in.Authenticate(tc.authserv)
			assert.Equal(t, tc.want, in.Verdict, "Authenticate(%q) on %s: reason %q", tc.authserv, tc.file, in.VerdictReason)
			if tc.authserv != "" {
				assert.NotEmpty(t, in.VerdictReason)
			}
		})
	}
}

// TestAuthenticateResults checks one field at a time: which results vouch
// for the From domain.
func TestAuthenticateResults(t *testing.T) {
	for _, tc := range []struct {
		from, field string
		want        mail.Verdict
	}{
		{"a@example.org", "mx; dmarc=pass header.from=example.org", mail.VerdictPass},
		{"a@example.org", "mx; dmarc=fail header.from=example.org; dkim=pass header.d=example.org", mail.VerdictFail},
		// A DMARC result about another author is not this one's.
		{"a@example.org", "mx; dmarc=pass header.from=other.example", mail.VerdictFail},
		{"a@example.org", "mx; spf=pass smtp.mailfrom=bounce@mail.example.org", mail.VerdictPass},
		{"a@mail.example.org", "mx; spf=pass smtp.mailfrom=example.org", mail.VerdictPass},
		{"a@example.org", "mx; spf=pass smtp.mailfrom=badexample.org", mail.VerdictFail},
		{"a@a.example.org", "mx; spf=pass smtp.mailfrom=b.example.org", mail.VerdictFail},
		{"a@example.org", "mx; spf=softfail smtp.mailfrom=example.org", mail.VerdictFail},
		{"a@example.org", "mx; spf=pass smtp.helo=example.org", mail.VerdictPass},
		{"a@example.org", "mx; dkim=pass header.i=@example.org", mail.VerdictPass},
		{"a@example.org", "mx; dkim=fail header.d=example.org", mail.VerdictFail},
		{"a@example.org", "mx 1; dkim=pass (good; really) header.d=example.org", mail.VerdictPass},
		// A comment does not end a result, nor hold one.
		{"a@example.org", "mx; spf=fail (x; dkim=pass header.d=example.org) smtp.mailfrom=example.org", mail.VerdictFail},
		// A result the library cannot read does not hide the others.
		{"a@example.org", "mx; x-weird; dkim=pass header.d=example.org", mail.VerdictPass},
		{"a@example.org", `mx; spf=pass smtp.mailfrom="a@example.org"`, mail.VerdictPass},
		{"a@example.org", "mx; iprev=pass policy.iprev=192.0.2.1", mail.VerdictNone},
		{"a@example.org", "mx; none", mail.VerdictNone},
		{"", "mx; dkim=pass header.d=example.org", mail.VerdictFail},
	} {
		in := &mail.Inbound{From: mail.Address{Addr: tc.from}, AuthResults: []string{tc.field}}
		in.Authenticate("mx")
		assert.Equal(t, tc.want, in.Verdict, "From %s, Authentication-Results: %s: reason %q", tc.from, tc.field, in.VerdictReason)
	}
}
