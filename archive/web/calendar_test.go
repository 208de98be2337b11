package web

import (
	"bytes"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"pbem/archive"
)

// icsComponent is a parsed iCalendar component: its properties (name to
// values, parameters dropped) and sub-components.
type icsComponent struct {
	Name  string
	Props map[string][]string
	Subs  []*icsComponent
}

// parseICS is a strict reader of what RFC 5545 requires of the text: every
// line ends in CRLF, none is longer than 75 octets, a folded line goes on
// after CRLF and one space or tab, every content line is NAME[;PARAMS]:VALUE,
// and BEGIN and END nest. It returns the VCALENDAR.
func parseICS(t *testing.T, body []byte) *icsComponent {
	t.Helper()
	if !bytes.HasSuffix(body, []byte("\r\n")) {
		t.Fatalf("the calendar does not end in CRLF")
	}
	var lines []string
	for i, raw := range strings.Split(strings.TrimSuffix(string(body), "\r\n"), "\r\n") {
		if strings.ContainsAny(raw, "\r\n") {
			t.Fatalf("line %d has a bare CR or LF: %q", i+1, raw)
		}
		if len(raw) > 75 {
			t.Errorf("line %d is %d octets, more than 75: %q", i+1, len(raw), raw)
		}
		if !utf8.ValidString(raw) {
			t.Errorf("line %d is not UTF-8 (folded inside a character?): %q", i+1, raw)
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
	nameRE := regexp.MustCompile(`^([A-Za-z0-9-]+)((?:;[^:]*)?):(.*)$`)
	var stack []*icsComponent
	var root *icsComponent
	for _, l := range lines {
		m := nameRE.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("%q is not a content line NAME:VALUE", l)
		}
		name, value := strings.ToUpper(m[1]), m[3]
		switch name {
		case "BEGIN":
			c := &icsComponent{Name: value, Props: map[string][]string{}}
			if len(stack) > 0 {
				top := stack[len(stack)-1]
				top.Subs = append(top.Subs, c)
			} else if root != nil {
				t.Fatalf("a second top-level component %s", value)
			} else {
				root = c
			}
			stack = append(stack, c)
		case "END":
			if len(stack) == 0 || stack[len(stack)-1].Name != value {
				t.Fatalf("END:%s closes nothing open", value)
			}
			stack = stack[:len(stack)-1]
		default:
			if len(stack) == 0 {
				t.Fatalf("%s outside any component", name)
			}
			top := stack[len(stack)-1]
			top.Props[name] = append(top.Props[name], value)
		}
	}
	if len(stack) > 0 || root == nil || root.Name != "VCALENDAR" {
		t.Fatalf("the calendar is not one closed VCALENDAR")
	}
	for _, p := range []string{"VERSION", "PRODID"} {
		if len(root.Props[p]) != 1 {
			t.Errorf("VCALENDAR has %d %s, want 1", len(root.Props[p]), p)
		}
	}
	return root
}

var icsUTC = regexp.MustCompile(`^\d{8}T\d{6}Z$`)

// events checks the VEVENTs of a calendar (UID, DTSTAMP, DTSTART before
// DTEND, both in UTC, SUMMARY; UIDs distinct) and returns each one's UID
// and end.
func events(t *testing.T, cal *icsComponent) map[string]time.Time {
	t.Helper()
	out := map[string]time.Time{}
	for _, ev := range cal.Subs {
		if ev.Name != "VEVENT" {
			continue
		}
		for _, p := range []string{"UID", "DTSTAMP", "DTSTART", "DTEND", "SUMMARY"} {
			if len(ev.Props[p]) != 1 {
				t.Errorf("a VEVENT has %d %s, want 1: %v", len(ev.Props[p]), p, ev.Props)
			}
		}
		var at [2]time.Time
		for i, p := range []string{"DTSTART", "DTEND"} {
			v := strings.Join(ev.Props[p], "")
			if !icsUTC.MatchString(v) {
				t.Errorf("%s %q is not a UTC date-time (YYYYMMDDTHHMMSSZ)", p, v)
			}
			at[i], _ = time.Parse("20060102T150405Z", v)
		}
		if !at[0].Before(at[1]) {
			t.Errorf("DTSTART %v is not before DTEND %v", at[0], at[1])
		}
		uid := strings.Join(ev.Props["UID"], "")
		if _, dup := out[uid]; dup {
			t.Errorf("two events have the UID %s", uid)
		}
		out[uid] = at[1]
	}
	return out
}

// TestDeadlinesCalendar: a player's calendar, opened by its key, has an
// event per game where the player has the move, ending at the game's
// deadline; a wrong, forged or revoked key gives 404, and a good key under
// another name than the player's is sent to the player's name.
func TestDeadlinesCalendar(t *testing.T) {
	fx := newFixture(t)
	ctx := t.Context()
	// p0@example.org is Alice in castles, Carol in rpp, Mallory in the
	// private ziggurat43; its player record is named Alice.
	alice := &archive.Player{Address: archive.Address{Name: "Alice", Addr: "p0@example.org"}}
	bob := &archive.Player{Address: archive.Address{Name: "Bob", Addr: "p1@example.org"}}
	if err := fx.store.Commit(ctx, &archive.Change{Players: []*archive.Player{alice, bob}}); err != nil {
		t.Fatal(err)
	}
	secret, err := fx.store.Secret(ctx, archive.CalendarSecretName)
	if err != nil {
		t.Fatal(err)
	}
	// The games where p0 has the move, read from the records.
	want := map[string]time.Time{}
	for _, id := range []int64{fx.castles, fx.rpp, fx.private, fx.ziggurat, fx.invited} {
		g, err := fx.store.Game(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		gv := &game{Ref: g, Record: g.Record}
		fx.srv.check(gv)
		if g.Status == archive.Playing && gv.Checked.Lines[gv.plies()].State().ToMove() == 0 {
			want[fmt.Sprintf("pbem-game-%d@example.com", id)] = g.Deadline.UTC()
		}
	}
	if len(want) == 0 {
		t.Fatal("p0 has the move in no game of the fixture; the test checks nothing")
	}
	key := archive.CalendarKey(secret, "p0@example.org", 0)
	path := archive.CalendarPath("Alice", key)
	code, body, hdr := get(t, fx.srv, path)
	if code != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "text/calendar") {
		t.Fatalf("GET %s = %d %s, want 200 text/calendar:\n%s", path, code, hdr.Get("Content-Type"), body)
	}
	got := events(t, parseICS(t, []byte(body)))
	if len(got) != len(want) {
		t.Errorf("the calendar has events %v, want %v", got, want)
	}
	for uid, end := range want {
		if !got[uid].Equal(end) {
			t.Errorf("event %s ends at %v, want the game's deadline %v", uid, got[uid], end)
		}
	}
	for _, p := range []string{
		"/players/Alice/deadlines.ics",
		"/players/Alice/deadlines.ics?key=" + key[:21] + "x",
		archive.CalendarPath("Alice", archive.CalendarKey([]byte("another secret"), "p0@example.org", 0)),
	} {
		if code, body, _ := get(t, fx.srv, p); code != http.StatusNotFound || strings.Contains(body, "VCALENDAR") {
			t.Errorf("GET %s = %d, want 404 for a wrong key", p, code)
		}
	}
	// A good key under another name (the player's name changed since)
	// is sent to the current one.
	code, _, hdr = get(t, fx.srv, archive.CalendarPath("Bob", key))
	if code != http.StatusMovedPermanently || hdr.Get("Location") != path {
		t.Errorf("GET the calendar under another name = %d to %q, want 301 to %s", code, hdr.Get("Location"), path)
	}
	// Revoked: the generation moves on, the old key is worthless.
	p, err := fx.store.Player(ctx, "p0@example.org")
	if err != nil {
		t.Fatal(err)
	}
	p.Calendar++
	if err := fx.store.Commit(ctx, &archive.Change{Players: []*archive.Player{p}}); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := get(t, fx.srv, path); code != http.StatusNotFound {
		t.Errorf("GET %s with a revoked key = %d, want 404", path, code)
	}
	if code, _, _ := get(t, fx.srv, archive.CalendarPath("Alice", archive.CalendarKey(secret, "p0@example.org", 1))); code != http.StatusOK {
		t.Errorf("the new key gives %d, want 200", code)
	}
}

// TestICSFold: content lines are folded at 75 octets, never inside a
// character, and unfold to what was written.
func TestICSFold(t *testing.T) {
	for _, tc := range []struct{ name, line string }{
		{"short", "SUMMARY:Your move"},
		{"75", "SUMMARY:" + strings.Repeat("a", 67)},
		{"76", "SUMMARY:" + strings.Repeat("a", 68)},
		{"long", "DESCRIPTION:" + strings.Repeat("0123456789", 30)},
		{"utf-8", "SUMMARY:" + strings.Repeat("Jörg ♞ ", 30)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c archive.ICS
			c.Line(tc.line)
			out := c.String()
			phys := strings.Split(strings.TrimSuffix(out, "\r\n"), "\r\n")
			for i, l := range phys {
				if len(l) > 75 || !utf8.ValidString(l) || i > 0 && l[0] != ' ' {
					t.Errorf("physical line %d = %q (%d octets), want at most 75, valid UTF-8, continuations after a space", i+1, l, len(l))
				}
			}
			if wantLines := 1; len(tc.line) > 75 && len(phys) == wantLines {
				t.Errorf("a line of %d octets was not folded", len(tc.line))
			}
			if got := strings.ReplaceAll(strings.TrimSuffix(out, "\r\n"), "\r\n ", ""); got != tc.line {
				t.Errorf("unfolded = %q, want %q", got, tc.line)
			}
		})
	}
	if got, want := archive.ICSText("a, b; c\\d\ne"), `a\, b\; c\\d\ne`; got != want {
		t.Errorf("icsText = %q, want %q", got, want)
	}
	if archive.ICSTime(t0) != "20261121T100000Z" {
		t.Errorf("archive.ICSTime(%v) = %q, want 20261121T100000Z", t0, archive.ICSTime(t0))
	}
}
