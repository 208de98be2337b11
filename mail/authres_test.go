package mail_test

import (
	"os"
	"path/filepath"
	"strings"
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
		// Issue 42, headers as the servers write them: Gmail with an
		// envelope sender holding ";dmarc=pass;" in quotes; Microsoft 365's
		// dmarc=fail beside an aligned DKIM pass; Fastmail's DMARC with its
		// policy properties; OpenDMARC's field above OpenDKIM's.
		{"gmail-quoted-mailfrom.eml", "mx.google.com", mail.VerdictFail},
		{"m365-dmarc-fail-aligned-dkim.eml", mail.NoAuthservID, mail.VerdictFail},
		{"fastmail-dmarc-pass.eml", "*.messagingengine.com", mail.VerdictPass},
		{"postfix-opendmarc-pass.eml", "mx.pbem.example", mail.VerdictPass},
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

		// Issue 42: a ";" inside a quoted string (an envelope sender
		// written verbatim) or a comment ends nothing.
		{"a@example.org", `mx; spf=pass smtp.mailfrom="x;dmarc=pass;"@evil.example; dmarc=fail header.from=example.org`, mail.VerdictFail},
		{"a@example.org", `mx; spf=pass smtp.mailfrom="x;dmarc=pass header.from=example.org;"@evil.example`, mail.VerdictFail},
		{"a@example.org", `mx; spf=pass smtp.mailfrom="a@example.org"@evil.example`, mail.VerdictFail},
		{"a@example.org", `mx; spf=pass smtp.mailfrom="a\"@example.org;dkim=pass header.d=example.org"@evil.example`, mail.VerdictFail},
		{"a@example.org", `mx; spf=pass smtp.mailfrom="evil"@example.org`, mail.VerdictPass},
		{"a@example.org", `mx; spf=pass smtp.mailfrom=SRS0=HHH=TT=example.org=a@example.org`, mail.VerdictPass},
		// An unclosed quoted string: the field cannot be read, which fails.
		{"a@example.org", `mx; dkim=pass header.d=example.org; spf=pass smtp.mailfrom="x; dmarc=fail header.from=example.org`, mail.VerdictFail},
		// DMARC for the From domain decides: an aligned pass does not
		// outweigh its fail, in any order.
		{"a@example.org", "mx; dkim=pass header.d=example.org; dmarc=fail header.from=example.org", mail.VerdictFail},
		{"a@example.org", "mx; spf=pass smtp.mailfrom=example.org; dmarc=fail header.from=example.org", mail.VerdictFail},
		// A DMARC pass naming no domain, or another, passes nobody.
		{"a@example.org", "mx; dmarc=pass", mail.VerdictFail},
		{"a@example.org", "mx; dmarc=pass header.from=evil.example", mail.VerdictFail},
		{"a@example.org", "mx; dmarc=pass header.from=example.org.evil.example", mail.VerdictFail},
		{"a@example.org", "mx; dmarc=pass header.from=EXAMPLE.org", mail.VerdictPass},
		// Alignment stops at the public suffix: eu.org and github.io are
		// suffixes anyone registers under.
		{"admin@eu.org", "mx; dkim=pass header.d=mallory.eu.org", mail.VerdictFail},
		{"a@mallory.eu.org", "mx; spf=pass smtp.mailfrom=eu.org", mail.VerdictFail},
		{"a@x.github.io", "mx; dkim=pass header.d=github.io", mail.VerdictFail},
		{"a@example.co.uk", "mx; dkim=pass header.d=co.uk", mail.VerdictFail},
		{"a@mail.example.co.uk", "mx; dkim=pass header.d=example.co.uk", mail.VerdictPass},
		{"admin@eu.org", "mx; dkim=pass header.d=eu.org", mail.VerdictPass},
		// White space and comments around "=" and "." (RFC 8601's CFWS).
		{"a@example.org", "mx; dkim = pass (ok) header . d = example.org", mail.VerdictPass},
		{"a@example.org", `"mx"; dkim=pass header.d=example.org`, mail.VerdictPass},
	} {
		in := &mail.Inbound{From: mail.Address{Addr: tc.from}, AuthResults: []string{tc.field}}
		in.Authenticate("mx")
		assert.Equal(t, tc.want, in.Verdict, "From %s, Authentication-Results: %s: reason %q", tc.from, tc.field, in.VerdictReason)
	}
}

// FuzzAuthResults: whatever text a sender gets written into a quoted
// string or a comment of the trusted server's field (an envelope sender,
// a HELO name), the results around it are read as written: the DMARC fail
// after it decides, and the field holds exactly its three results.
func FuzzAuthResults(f *testing.F) {
	for _, s := range []string{"x;dmarc=pass;", `a"; dmarc=pass header.from=example.org; x="`, "(", ")", `\`, "a@example.org", ";;;=@."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = strings.Map(func(r rune) rune {
			if r == '\r' || r == '\n' {
				return -1
			}
			return r
		}, s)
		quoted := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
		comment := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`).Replace(s)
		for _, field := range []string{
			`mx; spf=pass smtp.mailfrom="` + quoted + `"@evil.example; dkim=pass header.d=example.org; dmarc=fail header.from=example.org`,
			`mx; spf=pass (` + comment + `) smtp.mailfrom=evil.example; dkim=pass header.d=example.org; dmarc=fail header.from=example.org`,
		} {
			in := &mail.Inbound{From: mail.Address{Addr: "a@example.org"}, AuthResults: []string{field}}
			in.Authenticate("mx")
			if in.Verdict != mail.VerdictFail || !strings.HasPrefix(in.VerdictReason, "dmarc=fail") {
				t.Fatalf("Authentication-Results: %s\nread as %v (%s), want the dmarc=fail it ends with", field, in.Verdict, in.VerdictReason)
			}
		}
		// Any text at all: read without panicking, and a verdict with a reason.
		in := &mail.Inbound{From: mail.Address{Addr: "a@example.org"}, AuthResults: []string{"mx; " + s}}
		in.Authenticate("mx")
		if in.VerdictReason == "" {
			t.Fatalf("Authentication-Results: mx; %s: no reason given", s)
		}
	})
}
