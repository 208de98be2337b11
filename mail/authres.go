package mail

import (
	"strings"

	"golang.org/x/net/publicsuffix"
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
	// VerdictPass: DMARC passed for the From domain, or (without a DMARC
	// pass or fail for it) SPF or DKIM passed for a domain aligned with
	// the From address.
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
// A DMARC result for the From domain (its header.from naming that domain)
// decides when it is pass or fail: a fail is not outweighed by an aligned
// SPF or DKIM pass. A DMARC pass about another domain, or naming none,
// passes nothing. Otherwise an SPF pass whose smtp.mailfrom domain, or a
// DKIM pass whose header.d domain, is aligned with the From domain (the
// same domain, or one a subdomain of the other below the public suffix:
// see [aligned]) passes; any other SPF, DKIM or DMARC result fails.
func (m *Inbound) Authenticate(authservID string) {
	m.Verdict, m.VerdictReason = VerdictNone, ""
	authservID = strings.TrimSpace(authservID)
	if authservID == "" {
		return
	}
	for _, f := range m.AuthResults {
		id, results := parseAuthResults(f)
		if id != "" && authservMatch(id, authservID) {
			m.Verdict, m.VerdictReason = judge(results, domainOf(m.From.Addr))
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

// judge reads the results of one Authentication-Results field for the
// From domain from.
func judge(results []authResult, from string) (Verdict, string) {
	var spf, dkim, dmarc []string // the results seen, for the reason
	var pass string               // the first aligned SPF or DKIM pass
	dmarcPass, dmarcFail := false, false
	for _, r := range results {
		switch r.method {
		case "unreadable":
			return VerdictFail, "unreadable Authentication-Results: a quoted string or comment is not closed"
		case "dmarc":
			hf := r.prop("header.from")
			d := domainOf(hf)
			if hf == "" {
				d = "no header.from"
			}
			if from == "" || d != from {
				// About another author, or about none named: a pass
				// vouches for nobody; a fail for an unnamed domain is
				// taken to be about this message's.
				if hf == "" && r.value == "fail" {
					dmarcFail = true
				}
				dmarc = append(dmarc, r.value+" ("+d+")")
				continue
			}
			dmarc = append(dmarc, r.value)
			switch r.value {
			case "pass":
				dmarcPass = true
			case "fail":
				dmarcFail = true
			}
		case "spf":
			a := r.prop("smtp.mailfrom")
			if a == "" {
				a = r.prop("smtp.helo")
			}
			d := domainOf(a)
			if r.value == "pass" && aligned(d, from) && pass == "" {
				pass = "spf=pass for " + d
			}
			spf = append(spf, r.value+" ("+d+")")
		case "dkim":
			d := r.prop("header.d")
			if d == "" {
				d = r.prop("header.i")
			}
			d = domainOf(d)
			if r.value == "pass" && aligned(d, from) && pass == "" {
				pass = "dkim=pass for " + d
			}
			dkim = append(dkim, r.value+" ("+d+")")
		}
	}
	switch {
	case dmarcFail:
		return VerdictFail, "dmarc=fail for " + from
	case dmarcPass:
		return VerdictPass, "dmarc=pass for " + from
	case pass != "":
		return VerdictPass, pass
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
// subdomain of the other with both under the same organizational domain,
// the name just below its public suffix (golang.org/x/net/publicsuffix):
// mallory.eu.org is not aligned with eu.org, a suffix under which anyone
// registers names. Siblings such as a.example.org and b.example.org do not
// count.
func aligned(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if a == b {
		return true
	}
	if !strings.HasSuffix(a, "."+b) && !strings.HasSuffix(b, "."+a) {
		return false
	}
	oa, err := publicsuffix.EffectiveTLDPlusOne(a)
	if err != nil {
		return false
	}
	ob, err := publicsuffix.EffectiveTLDPlusOne(b)
	return err == nil && oa == ob
}
