package referee_test

import (
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// icsEvent is a VEVENT read by readICS: its properties, parameters
// dropped, each once.
type icsEvent map[string]string

// readICS is a strict reader of an iCalendar object as RFC 5545 writes
// it: every line ends in CRLF and is at most 75 octets of UTF-8, a
// continuation starts with one space or tab, every content line is
// NAME[;PARAMS]:VALUE, BEGIN and END nest, one VCALENDAR with VERSION:2.0
// and PRODID; each VEVENT has UID, DTSTAMP, DTSTART, DTEND (UTC) and
// SUMMARY once, DTSTART before DTEND. It returns the VCALENDAR's
// properties and its events, or fails t.
func readICS(t testing.TB, text string) (map[string]string, []icsEvent) {
	t.Helper()
	if !strings.HasSuffix(text, "\r\n") {
		t.Fatalf("the calendar does not end in CRLF")
	}
	var lines []string
	for i, raw := range strings.Split(strings.TrimSuffix(text, "\r\n"), "\r\n") {
		if strings.ContainsAny(raw, "\r\n") || len(raw) > 75 || !utf8.ValidString(raw) {
			t.Fatalf("line %d = %q: a bare CR or LF, more than 75 octets, or not UTF-8", i+1, raw)
		}
		if raw != "" && (raw[0] == ' ' || raw[0] == '\t') {
			if len(lines) == 0 {
				t.Fatalf("line %d continues nothing", i+1)
			}
			lines[len(lines)-1] += raw[1:]
			continue
		}
		lines = append(lines, raw)
	}
	re := regexp.MustCompile(`^([A-Za-z0-9-]+)((?:;[^:]*)?):(.*)$`)
	cal := map[string]string{}
	var evs []icsEvent
	var stack []string
	for _, l := range lines {
		m := re.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("%q is not a content line NAME:VALUE", l)
		}
		name, value := strings.ToUpper(m[1]), m[3]
		switch {
		case name == "BEGIN":
			if len(stack) == 0 && (value != "VCALENDAR" || len(cal) > 0) || len(stack) == 1 && value != "VEVENT" || len(stack) > 1 {
				t.Fatalf("BEGIN:%s where it does not belong", value)
			}
			stack = append(stack, value)
			if value == "VEVENT" {
				evs = append(evs, icsEvent{})
			}
		case name == "END":
			if len(stack) == 0 || stack[len(stack)-1] != value {
				t.Fatalf("END:%s closes nothing open", value)
			}
			stack = stack[:len(stack)-1]
		case len(stack) == 1:
			cal[name] = value
		case len(stack) == 2:
			ev := evs[len(evs)-1]
			if _, twice := ev[name]; twice {
				t.Fatalf("%s twice in an event", name)
			}
			ev[name] = value
		default:
			t.Fatalf("%s outside any component", name)
		}
	}
	if len(stack) > 0 || cal["VERSION"] != "2.0" || cal["PRODID"] == "" {
		t.Fatalf("not one closed VCALENDAR with VERSION:2.0 and PRODID: %v", cal)
	}
	for _, ev := range evs {
		for _, p := range []string{"UID", "DTSTAMP", "DTSTART", "DTEND", "SUMMARY"} {
			if ev[p] == "" {
				t.Fatalf("an event without %s: %v", p, ev)
			}
		}
		if !icsTime(t, ev["DTSTART"]).Before(icsTime(t, ev["DTEND"])) {
			t.Fatalf("an event that ends before it starts: %v", ev)
		}
		icsTime(t, ev["DTSTAMP"])
	}
	return cal, evs
}

// icsTime reads a UTC DATE-TIME (RFC 5545 3.3.5, form #2).
func icsTime(t testing.TB, s string) time.Time {
	t.Helper()
	at, err := time.Parse("20060102T150405Z", s)
	if err != nil {
		t.Fatalf("%q is no UTC date-time: %v", s, err)
	}
	return at
}

// calendarSummary is what the transcripts show of a mail's calendar
// part: each event's UID, SEQUENCE and end, read strictly.
func calendarSummary(t testing.TB, text string) string {
	cal, evs := readICS(t, text)
	if cal["METHOD"] != "PUBLISH" {
		t.Fatalf("METHOD is %q, want PUBLISH", cal["METHOD"])
	}
	var out []string
	for _, ev := range evs {
		out = append(out, "UID "+ev["UID"]+" SEQUENCE "+ev["SEQUENCE"]+" DTEND "+ev["DTEND"])
	}
	return strings.Join(out, "; ")
}
