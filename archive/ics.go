package archive

import (
	"strings"
	"time"
	"unicode/utf8"
)

// ICSTime is a UTC date-time as RFC 5545 writes it (3.3.5, form #2).
func ICSTime(t time.Time) string { return t.UTC().Format("20060102T150405Z") }

// ICSText escapes a TEXT value (RFC 5545 3.3.11).
func ICSText(s string) string {
	return strings.NewReplacer(`\`, `\\`, ";", `\;`, ",", `\,`, "\r\n", `\n`, "\n", `\n`, "\r", "").Replace(s)
}

// ICS writes an iCalendar object (RFC 5545), one content line at a time:
// the one writer of the calendars of deadlines on the web and of the
// calendar part of the referee's board mails.
type ICS struct{ strings.Builder }

// Line writes a content line: CRLF after it, folded so that no line is
// longer than 75 octets (RFC 5545 3.1), never inside a UTF-8 sequence.
func (c *ICS) Line(s string) {
	limit := 75
	for len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		c.WriteString(s[:cut] + "\r\n ")
		s = s[cut:]
		limit = 74 // the continuation's leading space counts
	}
	c.WriteString(s + "\r\n")
}
