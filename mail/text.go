package mail

import (
	"strings"
)

// unflow decodes a format=flowed text/plain body (RFC 3676), as Thunderbird
// and others send by default: a line ending in a space continues on the
// next line of the same quote depth; space-stuffing is removed; with
// delsp, the trailing space is deleted when lines are joined. The signature
// separator "-- " is never joined. text has LF line endings.
func unflow(text string, delsp bool) string {
	lines := strings.Split(text, "\n")
	var out []string
	var cur strings.Builder
	curDepth, open := 0, false
	flush := func() {
		if open {
			out = append(out, strings.Repeat(">", curDepth)+prefixSpace(curDepth)+cur.String())
			cur.Reset()
			open = false
		}
	}
	for _, l := range lines {
		depth := 0
		for depth < len(l) && l[depth] == '>' {
			depth++
		}
		body := strings.TrimPrefix(l[depth:], " ") // space-stuffing
		if open && depth != curDepth {
			flush()
		}
		if body == "-- " {
			flush()
			out = append(out, strings.Repeat(">", depth)+prefixSpace(depth)+body)
			continue
		}
		flowed := strings.HasSuffix(body, " ")
		if flowed && delsp {
			body = body[:len(body)-1]
		}
		cur.WriteString(body)
		curDepth, open = depth, true
		if !flowed {
			flush()
		}
	}
	flush()
	return strings.Join(out, "\n")
}

func prefixSpace(depth int) string {
	if depth > 0 {
		return " "
	}
	return ""
}

// FreshText returns the part of a reply's text that the sender wrote: it
// drops quoted lines ("> ..."), the attribution line that introduces a
// quote ("On Mon, Alice wrote:"), everything from a forwarded or original
// message marker ("-----Original Message-----") on, and the signature (from
// a "-- " line on). Leading and trailing blank lines are trimmed.
func FreshText(text string) string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var out []string
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if l == "-- " || l == "--" || isOriginalMarker(t) {
			break
		}
		if strings.HasPrefix(l, ">") {
			continue
		}
		if strings.HasSuffix(t, ":") && startsQuote(lines[i+1:]) && looksLikeAttribution(t) {
			continue
		}
		out = append(out, strings.TrimRight(l, " \t"))
	}
	for len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n")
}

func isOriginalMarker(t string) bool {
	t = strings.ToLower(t)
	return strings.HasPrefix(t, "-----original message-----") ||
		strings.HasPrefix(t, "---------- forwarded message") ||
		strings.HasPrefix(t, "-------- original message --------") ||
		strings.HasPrefix(t, "-------- forwarded message --------")
}

// startsQuote reports whether the next non-blank line is quoted.
func startsQuote(rest []string) bool {
	for _, l := range rest {
		if strings.TrimSpace(l) == "" {
			continue
		}
		return strings.HasPrefix(l, ">")
	}
	return false
}

func looksLikeAttribution(t string) bool {
	l := strings.ToLower(t)
	return strings.Contains(l, "wrote") || strings.Contains(l, "écrit") || strings.Contains(l, "schrieb") ||
		strings.Contains(l, "escribió") || strings.Contains(l, "scritto") || strings.HasPrefix(l, "on ") || strings.HasPrefix(l, "le ")
}
