package archive

import (
	"fmt"
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

// CalendarSlot is how long before a deadline its event starts: the event
// ends when the mover's time runs out.
const CalendarSlot = time.Hour

// ICSEvent is a VEVENT of a deadline.
type ICSEvent struct {
	UID         string
	Stamp       time.Time // DTSTAMP
	Sequence    int64
	Modified    time.Time // LAST-MODIFIED, left out when zero
	Start, End  time.Time
	Summary     string
	Description string
	URL         string // left out when ""
}

// Event writes e as a VEVENT, its times in UTC and its texts escaped.
func (c *ICS) Event(e ICSEvent) {
	c.Line("BEGIN:VEVENT")
	c.Line("UID:" + e.UID)
	c.Line("DTSTAMP:" + ICSTime(e.Stamp))
	c.Line(fmt.Sprintf("SEQUENCE:%d", e.Sequence))
	if !e.Modified.IsZero() {
		c.Line("LAST-MODIFIED:" + ICSTime(e.Modified))
	}
	c.Line("DTSTART:" + ICSTime(e.Start))
	c.Line("DTEND:" + ICSTime(e.End))
	c.Line("SUMMARY:" + ICSText(e.Summary))
	c.Line("DESCRIPTION:" + ICSText(e.Description))
	if e.URL != "" {
		c.Line("URL:" + e.URL)
	}
	c.Line("END:VEVENT")
}
