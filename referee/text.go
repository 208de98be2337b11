package referee

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Width is the widest line the referee writes where it can (boards and
// records come from elsewhere).
const Width = 72

var (
	// attribution lines that introduce quoted text: "On Mon, ... wrote:",
	// "Am ... schrieb ...:", "Le ... a écrit :".
	attributionRE = regexp.MustCompile(`(?i)^(on\s.*\swrote|am\s.*\sschrieb.*|le\s.*\sa\s+écrit\s*)\s*:$`)
	// separators after which everything is quoted (top-posting clients
	// that do not prefix the original with ">").
	originalRE = regexp.MustCompile(`(?i)^(-{2,}\s*original message\s*-{2,}|_{10,}|-{5,}\s*forwarded message\s*-{5,}|begin forwarded message:)$`)
)

// bodyLines returns the lines of a body that are the sender's own: without
// quoted lines (">"), attribution lines ("On ... wrote:", also when wrapped
// over two lines), and without anything after a signature separator ("-- "
// or "--") or an "Original Message" separator. Lines are trimmed; blank
// lines are dropped.
func bodyLines(body string) []string {
	lines, _ := bodyLinesAt(body)
	return lines
}

// bodyLinesAt is bodyLines, with the index of each line among the body's
// lines (so that lines next to each other in the body can be told).
func bodyLinesAt(body string) (out []string, at []int) {
	raw := strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n")
	for i := 0; i < len(raw); i++ {
		l := strings.TrimSpace(strings.TrimPrefix(raw[i], "\ufeff"))
		switch {
		case l == "":
			continue
		case strings.HasPrefix(l, ">"):
			continue
		case strings.TrimRight(raw[i], "\r") == "-- " || l == "--":
			return out, at
		case originalRE.MatchString(l):
			return out, at
		case attributionRE.MatchString(l):
			continue
		case i+1 < len(raw) && startsAttribution(l) && attributionRE.MatchString(l+" "+strings.TrimSpace(raw[i+1])):
			i++
			continue
		}
		out = append(out, l)
		at = append(at, i)
	}
	return out, at
}

func startsAttribution(l string) bool {
	f := strings.ToLower(firstWord(l))
	return f == "on" || f == "am" || f == "le"
}

// replyPrefixRE matches one reply or forward prefix of a subject, as the
// clients write it in English and other languages: Re:, Fwd:, Fw:, AW:, WG:,
// SV:, VS:, TR:, RV:, Antw:, ... (also "RE :" and "Re[2]:").
var replyPrefixRE = regexp.MustCompile(`(?i)^(?:re|fwd?|aw|wg|sv|vs|tr|rv|antw|enc|res|odp|ynt|ref)(?:\s*\[\d+\]|\s*\(\d+\))?\s*:\s*`)

// subjectLine returns the line a subject holds for the referee to read:
// the subject without its reply and forward prefixes (repeated) and
// without a [pbem #ID TOKEN] tag. A subject with a bare [pbem] tag (a reply
// to one of the referee's mails about no game, whose subject is the
// referee's own label, e.g. "[pbem] help") holds none.
func subjectLine(subject string) string {
	if loc := tagRE.FindStringSubmatchIndex(subject); loc != nil {
		if loc[2] < 0 {
			return ""
		}
		subject = subject[:loc[0]] + " " + subject[loc[1]:]
	}
	s := strings.TrimSpace(subject)
	for {
		loc := replyPrefixRE.FindStringIndex(s)
		if loc == nil {
			break
		}
		s = strings.TrimSpace(s[loc[1]:])
	}
	return s
}

// plyShaped reports whether l has the shape of a ply in the notations of
// the games: its first word (after joining ", "-separated actions) is an
// optional seat label ("R:"), an optional piece letter, then a square (a
// letter and digits) or a drop ("@c3"), followed only by characters of
// the notations; a trailing "#N" is allowed. "Ca1-b2, a2xb3", "Qd4xb6",
// "R:Lc1-c2", "Sa1:b2>a2,-b2", "@c3" and "e4" have it; "Hi Carol,",
// "Cheers, Hank", "(photo attached)" and "Thanks!" do not. The scan is
// linear and stops at the first word.
func plyShaped(l string) bool {
	w := strings.ReplaceAll(l, ", ", ",")
	w, _, _ = strings.Cut(w, " ")
	if len(w) > 64 {
		return false
	}
	for _, c := range w {
		if c > 0x7f || !(isLetter(c) || isDigit(c) || strings.ContainsRune("-x:>^*@,+#!?=.", c)) {
			return false
		}
	}
	if len(w) >= 2 && isLetter(rune(w[0])) && w[1] == ':' {
		w = w[2:] // a seat label
	}
	if len(w) >= 1 && w[0] == '@' {
		w = w[1:]
	} else if len(w) >= 3 && isLetter(rune(w[0])) && isLetter(rune(w[1])) && isDigit(rune(w[2])) {
		w = w[1:] // a piece letter
	}
	if len(w) < 2 || !isLetter(rune(w[0])) {
		return false
	}
	digits := 0
	for digits+1 < len(w) && isDigit(rune(w[digits+1])) {
		digits++
	}
	return digits == 1 || digits == 2
}

func isLetter(c rune) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c rune) bool  { return c >= '0' && c <= '9' }

func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// verbOf is the lower-cased first word of a line without trailing
// punctuation ("Resign." is resign).
func verbOf(l string) string {
	return strings.TrimRight(strings.ToLower(firstWord(l)), ".!?:,;")
}

// splitArgs splits s into words at spaces and commas, keeping "double
// quoted" parts (of a key="value" too) together without their quotes.
func splitArgs(s string) (args []string, ok bool) {
	var cur strings.Builder
	in, started := false, false
	flush := func() {
		if started {
			args = append(args, cur.String())
		}
		cur.Reset()
		started = false
	}
	for _, c := range s {
		switch {
		case c == '"':
			in = !in
			started = true
		case !in && (c == ' ' || c == '\t' || c == ','):
			flush()
		default:
			cur.WriteRune(c)
			started = true
		}
	}
	flush()
	return args, !in
}

// joinPlies joins words into plies: a word ending with "," (or a word
// starting with ",") continues the ply before, so that "Ca1-b2, a2xb3" is
// one ply.
func joinPlies(words []string) []string {
	var out []string
	cont := false
	for _, w := range words {
		if len(out) > 0 && (cont || strings.HasPrefix(w, ",")) {
			out[len(out)-1] += w
		} else {
			out = append(out, w)
		}
		cont = strings.HasSuffix(w, ",")
	}
	return out
}

// wrap fills text to Width columns: paragraphs are separated by blank
// lines; lines that start with a space or look like a table are kept as
// they are.
func wrap(text string) string {
	var b strings.Builder
	for i, para := range strings.Split(text, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		if utf8.RuneCountInString(para) <= Width || strings.HasPrefix(para, " ") || strings.HasPrefix(para, "> ") {
			b.WriteString(para)
			continue
		}
		col := 0
		indent := ""
		if strings.HasPrefix(para, "- ") || strings.HasPrefix(para, "* ") {
			indent = "  "
		}
		for j, w := range strings.Fields(para) {
			n := utf8.RuneCountInString(w)
			switch {
			case j == 0:
			case col+1+n > Width:
				b.WriteString("\n" + indent)
				col = len(indent)
			default:
				b.WriteByte(' ')
				col++
			}
			b.WriteString(w)
			col += n
		}
	}
	return b.String()
}

// quoteLine quotes a line of the request in a reply, cut to fit.
func quoteLine(l string) string {
	if utf8.RuneCountInString(l) > Width-5 {
		r := []rune(l)
		l = string(r[:Width-8]) + "..."
	}
	return "> " + l
}

// printable removes control characters (but keeps newlines) from text a
// player sends to others.
func printable(s string) string {
	return strings.Map(func(c rune) rune {
		if c == '\n' {
			return c
		}
		if c < ' ' || c == 0x7f || c == utf8.RuneError {
			return -1
		}
		return c
	}, s)
}
