package mail

import (
	"strings"

	"github.com/emersion/go-msgauth/authres"
)

// Verdict is what the receiving mail server found of a message's author:
// whether the domain of its From address is vouched for by SPF, DKIM or
// DMARC, as the server wrote in its Authentication-Results field (RFC 8601).
type Verdict int

const (
	// VerdictNone: no verdict. Either no trusted server id is configured,
	// or the message has no Authentication-Results field from that server,
	// or the field reports no SPF, DKIM or DMARC result.
	VerdictNone Verdict = iota
	// VerdictPass: DMARC passed, or SPF or DKIM passed for a domain
	// aligned with the From address.
	VerdictPass
	// VerdictFail: DMARC failed, or neither SPF nor DKIM passed for a
	// domain aligned with the From address.
	VerdictFail
)

func (v Verdict) String() string {
	switch v {
	case VerdictPass:
		return "pass"
	case VerdictFail:
		return "fail"
	}
	return "none"
}

// Authenticate sets m.Verdict and m.VerdictReason from the first (topmost)
// Authentication-Results field whose authentication service identifier is
// authservID, the receiving server's: it is the one that server wrote.
// Fields with other identifiers, and those with authservID further down,
// are ignored, since anyone can write one (RFC 8601 section 5). An empty
// authservID leaves the verdict at [VerdictNone]; [NoAuthservID] trusts
// the first field written without an identifier, and "*.example.net" any
// identifier under example.net.
//
// A DMARC result for the From domain decides when it is pass or fail.
// Otherwise an SPF pass whose smtp.mailfrom domain, or a DKIM pass whose
// header.d domain, is aligned with the From domain (the same domain, or
// one a subdomain of the other) passes; any other SPF, DKIM or DMARC
// result fails.
func (m *Inbound) Authenticate(authservID string) {
	m.Verdict, m.VerdictReason = VerdictNone, ""
	authservID = strings.TrimSpace(authservID)
	if authservID == "" {
		return
	}
	for _, f := range m.AuthResults {
		id, segs := authservOf(f)
		if id != "" && authservMatch(id, authservID) {
			m.Verdict, m.VerdictReason = judge(segs, domainOf(m.From.Addr))
			return
		}
	}
	m.VerdictReason = "no Authentication-Results from " + authservID
}

// authservMatch reports whether the identifier id is the trusted one:
// the same name (any case), or, for a trusted "*.example.net", any name
// ending in ".example.net" (a provider whose receiving servers each write
// their own name, as Fastmail's mx1 to mxN.messagingengine.com do).
func authservMatch(id, trusted string) bool {
	if suffix, ok := strings.CutPrefix(trusted, "*."); ok && suffix != "" {
		return len(id) > len(suffix)+1 && strings.HasSuffix(strings.ToLower(id), "."+strings.ToLower(suffix))
	}
	return strings.EqualFold(id, trusted)
}

// NoAuthservID is the trusted authentication service identifier that
// stands for the Authentication-Results fields written without one, as
// Microsoft 365 (Exchange Online) writes them.
const NoAuthservID = "(none)"

// authservOf splits an Authentication-Results field, comments removed,
// into its authentication service identifier and its results. A field
// that starts with a result (method=value) has the identifier
// [NoAuthservID].
func authservOf(field string) (id string, results []string) {
	segs := strings.Split(stripComments(field), ";")
	first := strings.Fields(segs[0])
	if len(first) == 0 {
		return "", nil
	}
	if strings.Contains(first[0], "=") {
		return NoAuthservID, segs
	}
	return first[0], segs[1:]
}

// judge reads the results of one Authentication-Results field for the
// From domain from.
func judge(segs []string, from string) (Verdict, string) {
	// Each result is read on its own: one the library cannot read (a
	// method it does not know, written oddly) does not hide the others.
	var results []authres.Result
	for _, seg := range segs {
		_, rs, err := authres.Parse("x; " + seg)
		if err == nil {
			results = append(results, rs...)
		}
	}
	var spf, dkim, dmarc []string // the results seen, for the reason
	for _, r := range results {
		switch r := r.(type) {
		case *authres.DMARCResult:
			if d := domainOf(r.From); r.From != "" && d != from {
				dmarc = append(dmarc, string(r.Value)+" ("+d+")") // about another author
				continue
			}
			dmarc = append(dmarc, string(r.Value))
			switch r.Value {
			case authres.ResultPass:
				return VerdictPass, "dmarc=pass"
			case authres.ResultFail:
				return VerdictFail, "dmarc=fail for " + from
			}
		case *authres.SPFResult:
			d := domainOf(r.From)
			if r.From == "" {
				d = domainOf(r.Helo)
			}
			if r.Value == authres.ResultPass && aligned(d, from) {
				return VerdictPass, "spf=pass for " + d
			}
			spf = append(spf, string(r.Value)+" ("+d+")")
		case *authres.DKIMResult:
			d := r.Domain
			if d == "" {
				d = domainOf(r.Identifier)
			}
			d = strings.ToLower(strings.TrimPrefix(d, "@"))
			if r.Value == authres.ResultPass && aligned(d, from) {
				return VerdictPass, "dkim=pass for " + d
			}
			dkim = append(dkim, string(r.Value)+" ("+d+")")
		}
	}
	if len(spf)+len(dkim)+len(dmarc) == 0 {
		return VerdictNone, "no SPF, DKIM or DMARC result"
	}
	var why []string
	for _, r := range []struct {
		method string
		seen   []string
	}{{"dmarc", dmarc}, {"spf", spf}, {"dkim", dkim}} {
		if len(r.seen) > 0 {
			why = append(why, r.method+"="+strings.Join(r.seen, ","))
		}
	}
	return VerdictFail, "no aligned pass for " + from + ": " + strings.Join(why, "; ")
}

// domainOf returns the lower-case domain of an address ("user@example.org",
// "@example.org" or "example.org").
func domainOf(addr string) string {
	addr = strings.Trim(strings.TrimSpace(addr), "<>\"")
	if i := strings.LastIndexByte(addr, '@'); i >= 0 {
		addr = addr[i+1:]
	}
	return strings.TrimSuffix(strings.ToLower(addr), ".")
}

// aligned reports whether the domains a and b are aligned: equal, or one a
// subdomain of the other (relaxed alignment, without the public suffix
// list: siblings such as a.example.org and b.example.org do not count).
func aligned(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	return a == b || strings.HasSuffix(a, "."+b) || strings.HasSuffix(b, "."+a)
}

// stripComments removes the comments (text in parentheses, which may nest
// and hold quoted pairs) from a header field value, outside quoted strings,
// so that a ";" or "=" in a comment is not read as part of a result.
func stripComments(v string) string {
	if !strings.ContainsRune(v, '(') {
		return v
	}
	var b strings.Builder
	depth, quoted := 0, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\' && (depth > 0 || quoted):
			if depth == 0 {
				b.WriteByte(c)
				if i+1 < len(v) {
					b.WriteByte(v[i+1])
				}
			}
			i++
		case quoted:
			b.WriteByte(c)
			if c == '"' {
				quoted = false
			}
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
			if depth == 0 {
				b.WriteByte(' ')
			}
		case depth > 0:
		default:
			if c == '"' {
				quoted = true
			}
			b.WriteByte(c)
		}
	}
	return b.String()
}
