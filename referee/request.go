package referee

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"
	"time"

	"pbem/archive"
)

// Address is a mailbox: a display name (possibly empty) and an address.
type Address = archive.Address

// Request is one inbound message, as the mail transport read it. The
// referee needs nothing else from it.
type Request struct {
	// From is the author (the From field).
	From Address
	// To is the address the message was delivered to (Delivered-To, else
	// the first To); a plus-address such as referee+12.k7x9q@host names a
	// game and carries the player's token.
	To      string
	Subject string
	// Body is the plain-text body (LF or CRLF line ends).
	Body string
	// MessageID, InReplyTo and References identify the message and what it
	// answers (angle brackets optional). A request without a Message-ID is
	// identified by a hash of its content.
	MessageID  string
	InReplyTo  string
	References []string
	// Received is the arrival time; moves count as made then (if it is
	// not after the referee's clock).
	Received time.Time
	// Size is the size of the whole message in bytes, if known (else the
	// body's length counts).
	Size int

	// The header facts the safety rules need (RFC 3834): the values of
	// Auto-Submitted and Precedence ("" when absent), whether an
	// X-Autoreply or X-Autorespond field is present, the top-level
	// Content-Type media type (e.g. "multipart/report"), whether the
	// envelope sender (Return-Path) is null (<>), and whether List-Id is
	// present.
	AutoSubmitted string
	Precedence    string
	XAutoreply    bool
	ContentType   string
	NullSender    bool
	ListID        bool

	// Verdict is what the receiving mail server found of the From
	// address (its Authentication-Results, RFC 8601): VerdictPass,
	// VerdictFail, or "" when it gave none. VerdictReason says why.
	Verdict       string
	VerdictReason string

	// Direct, when set, receives the reply to the sender instead of a
	// mail (see [Direct]); the mails to everyone else go as ever.
	Direct *Direct
}

// Sender verdicts for [Request.Verdict].
const (
	VerdictPass = "pass"
	VerdictFail = "fail"
)

// key identifies the request for duplicate detection: its Message-ID, or a
// hash of what it says.
func (q *Request) key() string {
	if id := trimID(q.MessageID); id != "" {
		return "<" + id + ">"
	}
	h := sha256.New()
	for _, s := range []string{q.From.Addr, q.To, q.Subject, q.Body, q.Received.UTC().Format(time.RFC3339Nano)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

func trimID(id string) string {
	return strings.Trim(strings.TrimSpace(id), "<>")
}

// automatic reports why a message must not be answered (RFC 3834: bounces,
// auto-replies, lists, our own mail), or "".
func (r *Referee) automatic(q *Request) string {
	from := strings.ToLower(q.From.Addr)
	local, domain, _ := strings.Cut(from, "@")
	switch {
	case q.NullSender:
		return "null sender (a bounce)"
	case q.Verdict == VerdictFail:
		// A forged From is never answered (no backscatter) and never
		// acts, whatever token it carries.
		return "sender not authenticated by the mail server (" + q.VerdictReason + ")"
	case r.unverified(q):
		return "no sender verdict from the mail server, and unauthenticated mail is ignored"
	case from == "" || domain == "":
		return "no sender address"
	case r.ownAddress(from):
		return "from the referee's own address"
	case domain == BotDomain:
		return "from a bot seat's address, where no mail comes from"
	case strings.EqualFold(strings.TrimSpace(q.ContentType), "multipart/report"):
		return "a delivery or disposition report"
	case local == "mailer-daemon" || local == "postmaster" || local == "listserv" || local == "majordomo" ||
		strings.HasPrefix(local, "owner-") || strings.HasSuffix(local, "-request") ||
		strings.HasPrefix(local, "bounce") || local == "noreply" || local == "no-reply" || local == "donotreply":
		return "from an automatic sender (" + local + ")"
	}
	if a := strings.ToLower(strings.TrimSpace(q.AutoSubmitted)); a != "" && !strings.HasPrefix(a, "no") {
		return "Auto-Submitted: " + a
	}
	switch p := strings.ToLower(strings.TrimSpace(q.Precedence)); p {
	case "bulk", "junk", "list":
		return "Precedence: " + p
	}
	if q.XAutoreply {
		return "X-Autoreply"
	}
	if q.ListID {
		return "from a mailing list"
	}
	return ""
}

// unverified reports whether q is not read for its sender verdict: a
// failing one, or none when Options.Unauthenticated is ignore.
func (r *Referee) unverified(q *Request) bool {
	return q.Verdict == VerdictFail || q.Verdict != VerdictPass && r.opts.Unauthenticated == UnauthenticatedIgnore
}

// ownAddress reports whether addr is the referee's address or one of its
// plus-addresses.
func (r *Referee) ownAddress(addr string) bool {
	local, domain, ok := strings.Cut(strings.ToLower(addr), "@")
	if !ok || domain != r.domain {
		return false
	}
	base, _, _ := strings.Cut(local, "+")
	return base == r.local
}

// cred is a game id and token the request carries (subject tag or
// plus-address).
type cred struct {
	game  int64
	token string // "" when only the game is named
	where string // "subject" or "address"
}

// tagRE matches the subject tag: [pbem #12 k7x9qabc] or [pbem #12].
var tagRE = regexp.MustCompile(`(?i)\[pbem(?:\s+#?(\d+)(?:\s+([a-z0-9]+))?)?\s*\]`)

// subjectTag finds the tag in a subject: whether there is one, and the game
// and token it names.
func subjectTag(subject string) (found bool, c cred) {
	m := tagRE.FindStringSubmatch(subject)
	if m == nil {
		return false, c
	}
	if m[1] != "" {
		c.game, _ = strconv.ParseInt(m[1], 10, 64)
		c.token = strings.ToLower(m[2])
		c.where = "subject"
	}
	return true, c
}

// plusAddress reads the game and token of referee+12.k7x9q@host.
func (r *Referee) plusAddress(to string) (c cred, ok bool) {
	to = strings.Trim(strings.TrimSpace(to), "<>")
	local, domain, found := strings.Cut(strings.ToLower(to), "@")
	if !found || domain != r.domain {
		return c, false
	}
	base, detail, plus := strings.Cut(local, "+")
	if !plus || base != r.local {
		return c, false
	}
	id, token, _ := strings.Cut(detail, ".")
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return c, false
	}
	return cred{game: n, token: token, where: "address"}, true
}

// tokenEqual compares tokens in constant time.
func tokenEqual(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// tokenAlphabet has no look-alike characters (no 0 o 1 l i).
const tokenAlphabet = "abcdefghjkmnpqrstuvwxyz23456789"

// TokenLength is the length of a player's token.
const TokenLength = 8

// newToken draws a token from r.rand.
func (r *Referee) newToken() (string, error) {
	b := make([]byte, TokenLength)
	out := make([]byte, 0, TokenLength)
	for len(out) < TokenLength {
		if _, err := readFull(r.opts.Rand, b); err != nil {
			return "", err
		}
		for _, c := range b {
			// Reject bytes that would bias the choice.
			if int(c) < 256-256%len(tokenAlphabet) && len(out) < TokenLength {
				out = append(out, tokenAlphabet[int(c)%len(tokenAlphabet)])
			}
		}
	}
	return string(out), nil
}

// normAddr lower-cases an address and strips angle brackets and a mailto:.
func normAddr(a string) string {
	a = strings.TrimSpace(a)
	a = strings.TrimPrefix(strings.TrimPrefix(a, "mailto:"), "MAILTO:")
	a = strings.Trim(a, "<>,;")
	return strings.ToLower(a)
}

// validAddr is a plausible mailbox address: local@domain.tld, printable,
// no spaces.
func validAddr(a string) bool {
	local, domain, ok := strings.Cut(a, "@")
	if !ok || local == "" || len(a) > 254 || !strings.Contains(domain, ".") || strings.ContainsAny(domain, "@") {
		return false
	}
	for _, c := range a {
		if c <= ' ' || c >= 0x7f || strings.ContainsRune(`"(),:;<>[\]`, c) {
			return false
		}
	}
	return !strings.HasPrefix(domain, ".") && !strings.HasSuffix(domain, ".")
}

// cleanName makes a display name safe for headers and records: printable,
// no quotes or angle brackets, at most 40 characters.
func cleanName(n string) string {
	n = strings.Map(func(c rune) rune {
		switch {
		case c < ' ' || c == 0x7f:
			return ' '
		case c == '"' || c == '<' || c == '>' || c == '\\' || c == '[' || c == ']':
			return -1
		}
		return c
	}, n)
	n = strings.Join(strings.Fields(n), " ")
	if r := []rune(n); len(r) > 40 {
		n = string(r[:40])
	}
	return n
}
