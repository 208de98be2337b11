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
	raw := strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n")
	var out []string
	for i := 0; i < len(raw); i++ {
		l := strings.TrimSpace(strings.TrimPrefix(raw[i], "\ufeff"))
		switch {
		case l == "":
			continue
		case strings.HasPrefix(l, ">"):
			continue
		case strings.TrimRight(raw[i], "\r") == "-- " || l == "--":
			return out
		case originalRE.MatchString(l):
			return out
		case attributionRE.MatchString(l):
			continue
		case i+1 < len(raw) && startsAttribution(l) && attributionRE.MatchString(l+" "+strings.TrimSpace(raw[i+1])):
			i++
			continue
		}
		out = append(out, l)
	}
	return out
}

func startsAttribution(l string) bool {
	f := strings.ToLower(firstWord(l))
	return f == "on" || f == "am" || f == "le"
}

// subjectCommand returns the command a subject carries, or "": a subject
// with a [pbem] tag is a reply to the referee's mail and carries none; else,
// after Re:/Fwd: prefixes, the subject is a command when its first word is
// one.
func subjectCommand(subject string) string {
	if found, _ := subjectTag(subject); found {
		return ""
	}
	s := strings.TrimSpace(subject)
	for {
		lower := strings.ToLower(s)
		cut := false
		for _, p := range []string{"re:", "aw:", "sv:", "fw:", "fwd:", "wg:", "tr:"} {
			if strings.HasPrefix(lower, p) {
				s = strings.TrimSpace(s[len(p):])
				cut = true
				break
			}
		}
		if !cut {
			break
		}
	}
	if isVerb(verbOf(s)) {
		return s
	}
	return ""
}

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
