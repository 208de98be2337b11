package referee

import (
	"errors"
	"slices"
	"strings"
	"unicode"

	"pbem/archive"
)

// maxOwnMails is how many of the referee's mails a reply is compared
// with: the one In-Reply-To names, then the latest References.
const maxOwnMails = 3

// maxOwnText bounds the referee's text a reply is compared with.
const maxOwnText = 64 << 10

// ownLine says whose a line of the body is.
type ownLine int

const (
	personsLine  ownLine = iota // the sender's
	refereesLine                // reproduces the referee's mail
	unsureLine                  // the sender's, unless it is a piece of the referee's text
)

// ownText is the referee's text that a reply may reproduce, its lines
// with their whitespace removed and joined, so that a line re-wrapped or
// re-spaced by a client is still found in it.
//
// A reply of a few lines asks a few questions of a text of a few kB: a
// plain search of the text answers each in well under a microsecond,
// where building the suffix automaton took about 70 µs a mail. So the
// first questions are searched for (at most scansPerText passes over the
// text in all, each for at most maxScanned bytes, which strings.Index
// finds in time linear in the text: a longer one may fall to its
// Rabin-Karp search, quadratic when hashes collide), and the automaton is
// built for a reply that asks more or longer: the work stays linear in
// the text and the body however long the reply is.
type ownText struct {
	text  string
	scans int // passes over text left before the automaton is built
	sam   *suffixAutomaton
	buf   []byte
}

// scansPerText is how many plain searches of the referee's text a reply
// gets before the suffix automaton answers instead.
const scansPerText = 16

// maxScanned is the longest piece of a reply a plain search looks for.
const maxScanned = 64

func newOwnText(text string) *ownText {
	return &ownText{text: text, scans: scansPerText}
}

// contains reports whether the parts, joined, are a substring of the text.
func (o *ownText) contains(parts ...string) bool {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if o.sam == nil && o.scans > 0 && n <= maxScanned {
		o.scans--
		if len(parts) == 1 {
			return strings.Contains(o.text, parts[0])
		}
		o.buf = o.buf[:0]
		for _, p := range parts {
			o.buf = append(o.buf, p...)
		}
		return strings.Contains(o.text, string(o.buf))
	}
	if o.sam == nil {
		o.sam = newSuffixAutomaton(o.text)
	}
	return o.sam.contains(parts...)
}

// ownWords returns the referee's text the request may reproduce: the
// mails it names (In-Reply-To, then References, newest first) that the
// referee sent, without the lines they quote from the sender, and the
// short help, which is in many of them.
func (s *session) ownWords() (*ownText, error) {
	var b strings.Builder
	b.WriteString(squeeze(shortHelp))
	if st := s.r.store; s.req != nil {
		ids := []string{s.req.InReplyTo}
		for i := len(s.req.References) - 1; i >= 0 && len(ids) < maxOwnMails+1; i-- {
			ids = append(ids, s.req.References[i])
		}
		seen := map[string]bool{}
		n := 0
		for _, id := range ids {
			id = trimID(id)
			_, domain, _ := strings.Cut(id, "@")
			if id == "" || seen[id] || !strings.EqualFold(domain, s.r.domain) || n == maxOwnMails {
				continue
			}
			seen[id] = true
			text, err := st.SentText(s.ctx, id)
			if errors.Is(err, archive.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, err
			}
			n++
			b.WriteByte(0) // no line runs from one mail into the next
			b.WriteString(squeeze(unquoted(text)))
			if b.Len() > maxOwnText {
				break
			}
		}
	}
	text := b.String()
	if len(text) > maxOwnText {
		text = text[:maxOwnText]
	}
	return newOwnText(text), nil
}

// unquoted is text without its quoted lines: the referee quotes the lines
// of a request it answers ("> new rpp with ..."), and those are the
// sender's words, which the sender may well send again.
func unquoted(text string) string {
	var b strings.Builder
	for l := range strings.Lines(text) {
		if !strings.HasPrefix(strings.TrimSpace(l), ">") {
			b.WriteString(l)
		}
	}
	return b.String()
}

// squeeze is s without whitespace and the quote marks at the start of its
// lines, lower-cased: what stays of a line however a client wraps, spaces
// or quotes it.
func squeeze(s string) string {
	var b strings.Builder
	start := true
	for _, c := range s {
		switch {
		case c == '\n':
			start = true
		case unicode.IsSpace(c) || c == '\u200b' || c == '\u200e' || c == '\u200f' || c == '\ufeff':
		case start && (c == '>' || c == '|'):
		default:
			start = false
			b.WriteRune(unicode.ToLower(c))
		}
	}
	return b.String()
}

// Lines are the referee's when they reproduce its text in a run: two
// lines next to each other (no line of the sender's between) whose text
// follows on in the referee's mail, together at least minOwnRun bytes; or
// one line of at least minOwnLine bytes found whole in it. A short line
// alone is the sender's even when the same words are in the referee's
// text ("resign" is in the help).
const (
	minOwnRun  = 16
	minOwnLine = 32
)

// judge says whose each of lines (a body's lines, see bodyLinesAt; at[i]
// is the index of lines[i] in the body) is. Only lines next to each other
// in the body (no blank or quoted line between) make a run. A line that
// is the sender's but is found whole in the referee's text and stands
// next to the referee's lines, or holds a comma as a piece of a list does
// ("draw, accept draw"), is unsure.
func (o *ownText) judge(lines []string, at []int) []ownLine {
	sq := make([]string, len(lines))
	for i, l := range lines {
		sq[i] = squeeze(l)
	}
	pair := make([]bool, len(lines)) // pair[i]: lines i and i+1 follow on, in the body and in the text
	for i := 0; i+1 < len(lines); i++ {
		pair[i] = at[i+1] == at[i]+1 && len(sq[i])+len(sq[i+1]) >= minOwnRun && sq[i] != "" && sq[i+1] != "" &&
			o.contains(sq[i], sq[i+1])
	}
	out := make([]ownLine, len(lines))
	for i := range lines {
		if pair[i] || i > 0 && pair[i-1] || len(sq[i]) >= minOwnLine && o.contains(sq[i]) {
			out[i] = refereesLine
		}
	}
	for i := range lines {
		if out[i] != personsLine || sq[i] == "" || !o.contains(sq[i]) {
			continue
		}
		next := i > 0 && at[i-1] == at[i]-1 && out[i-1] == refereesLine ||
			i+1 < len(lines) && at[i+1] == at[i]+1 && out[i+1] == refereesLine
		if next || strings.Contains(lines[i], ",") {
			out[i] = unsureLine
		}
	}
	return out
}

// grave reports whether l would resign, offer or accept a draw, or pass:
// a line the referee plays only when it is clearly the sender's.
func grave(l string) bool {
	switch verbOf(l) {
	case "resign", "pass", "draw":
		return true
	case "accept", "offer":
		f := strings.Fields(strings.ToLower(l))
		return len(f) > 1 && strings.TrimRight(f[1], ".!,;") == "draw"
	}
	return false
}

// suffixAutomaton recognises the substrings of a text (bytes), in time
// linear in the text to build and in the pattern to ask.
type suffixAutomaton struct {
	st []samState
}

type samState struct {
	len, link int32
	edges     []samEdge
}

type samEdge struct {
	c  byte
	to int32
}

func (a *suffixAutomaton) next(st int32, c byte) int32 {
	for _, e := range a.st[st].edges {
		if e.c == c {
			return e.to
		}
	}
	return -1
}

func (a *suffixAutomaton) set(st int32, c byte, to int32) {
	for i, e := range a.st[st].edges {
		if e.c == c {
			a.st[st].edges[i].to = to
			return
		}
	}
	a.st[st].edges = append(a.st[st].edges, samEdge{c, to})
}

func newSuffixAutomaton(text string) *suffixAutomaton {
	a := &suffixAutomaton{st: make([]samState, 1, 2*len(text)+1)}
	a.st[0].link = -1
	last := int32(0)
	for i := 0; i < len(text); i++ {
		c := text[i]
		cur := int32(len(a.st))
		a.st = append(a.st, samState{len: a.st[last].len + 1})
		p := last
		for p != -1 && a.next(p, c) < 0 {
			a.set(p, c, cur)
			p = a.st[p].link
		}
		if p == -1 {
			a.st[cur].link = 0
		} else if q := a.next(p, c); a.st[p].len+1 == a.st[q].len {
			a.st[cur].link = q
		} else {
			clone := int32(len(a.st))
			a.st = append(a.st, samState{len: a.st[p].len + 1, link: a.st[q].link, edges: slices.Clone(a.st[q].edges)})
			for p != -1 && a.next(p, c) == q {
				a.set(p, c, clone)
				p = a.st[p].link
			}
			a.st[q].link = clone
			a.st[cur].link = clone
		}
		last = cur
	}
	return a
}

// contains reports whether the parts, joined, are a substring of the text.
func (a *suffixAutomaton) contains(parts ...string) bool {
	st := int32(0)
	for _, p := range parts {
		for i := 0; i < len(p); i++ {
			if st = a.next(st, p[i]); st < 0 {
				return false
			}
		}
	}
	return true
}
