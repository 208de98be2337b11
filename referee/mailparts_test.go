package referee_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"pbem/archive"
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

// queued handles one request and returns the mails it queued, raw, marked
// sent.
func (h *harness) queued(text string) []archive.Outgoing {
	h.t.Helper()
	h.now = h.now.Add(time.Minute)
	req := h.request(fmt.Sprintf("q%d", h.now.UnixNano()), text)
	h.clock.set(h.now)
	if err := h.ref.Handle(h.ctx, req); err != nil {
		h.t.Fatal(err)
	}
	due, err := h.store.Due(h.ctx, h.now.Add(1000*24*time.Hour), 1000)
	if err != nil {
		h.t.Fatal(err)
	}
	for _, o := range due {
		if err := h.store.Sent(h.ctx, o.ID); err != nil {
			h.t.Fatal(err)
		}
	}
	return due
}

// outTo is the one mail of ms to addr, or fails.
func outTo(t testing.TB, ms []archive.Outgoing, addr string) archive.Outgoing {
	t.Helper()
	var found []archive.Outgoing
	for _, o := range ms {
		if len(o.To) == 1 && o.To[0].Addr == addr {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d mails to %s, want 1", len(found), addr)
	}
	return found[0]
}

// TestCalendarPart: the board mail to the player whose move it is carries
// the deadline as one event, read by a strict reader: its end is the
// deadline the referee stored, its UID the game's (the same after the
// next ply), SEQUENCE and DTSTAMP move on with the plies, and the
// description gives the game's reply address. The mail to the player who
// just moved has none, and neither has an invitation.
func TestCalendarPart(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := newHarness(t, db, nil)
		startGame(t, h, "toy", "players=2 days=3", nil)
		event := func(o archive.Outgoing) icsEvent {
			t.Helper()
			if o.Calendar == "" {
				t.Fatalf("the mail to %s about the move has no calendar part:\n%s", o.To[0].Addr, o.Text)
			}
			cal, evs := readICS(t, o.Calendar)
			if cal["METHOD"] != "PUBLISH" || len(evs) != 1 {
				t.Fatalf("METHOD %q and %d events, want PUBLISH and 1", cal["METHOD"], len(evs))
			}
			g, err := h.store.Game(h.ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			ev := evs[0]
			if end := icsTime(t, ev["DTEND"]); !end.Equal(g.Deadline.Truncate(time.Second)) {
				t.Errorf("DTEND %v, want the stored deadline %v", end, g.Deadline)
			}
			if ev["SUMMARY"] != "Your move in toy #1" {
				t.Errorf("SUMMARY %q", ev["SUMMARY"])
			}
			if o.ReplyTo == nil || !strings.Contains(strings.ReplaceAll(ev["DESCRIPTION"], `\`, ""), o.ReplyTo.Addr) {
				t.Errorf("DESCRIPTION %q does not give the reply address %v", ev["DESCRIPTION"], o.ReplyTo)
			}
			return ev
		}
		ms := h.queued("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\n+2\n")
		if o := outTo(t, ms, "alice@example.org"); o.Calendar != "" {
			t.Errorf("the player who moved got a calendar part:\n%s", o.Calendar)
		}
		first := event(outTo(t, ms, "bob@example.org"))
		ms = h.queued("from: Bob <bob@example.org>\nto: {plus 1 bob@example.org}\n\n+3\n")
		second := event(outTo(t, ms, "alice@example.org"))
		if first["UID"] != second["UID"] {
			t.Errorf("UID %q, then %q: want one per game", first["UID"], second["UID"])
		}
		s1, _ := strconv.Atoi(first["SEQUENCE"])
		s2, _ := strconv.Atoi(second["SEQUENCE"])
		if s2 <= s1 || !icsTime(t, second["DTSTAMP"]).After(icsTime(t, first["DTSTAMP"])) {
			t.Errorf("SEQUENCE %d then %d, DTSTAMP %s then %s: want both to increase", s1, s2, first["DTSTAMP"], second["DTSTAMP"])
		}

		// an invitation's deadline is no move's: no event
		ms = h.queued("from: Carol <carol@example.org>\nsubject: new toy with dan@example.org players=2 first=carol@example.org\n")
		if o := outTo(t, ms, "carol@example.org"); o.Calendar != "" {
			t.Errorf("an invitation has a calendar part:\n%s", o.Calendar)
		}
	})
}

// TestUnsubscribeByMail: a watcher's mail carries List-Unsubscribe; the
// mailto: form (unsubscribe watch TOKEN from the watcher's address) stops
// the watcher's mail and nothing else: the players' game mail keeps
// coming. A forged token, or the token sent from another address,
// changes nothing. "watch" again with the watcher's token undoes it.
func TestUnsubscribeByMail(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := newHarness(t, db, map[string]string{"web-base-url": "https://pbem.example.org/"})
		startGame(t, h, "toy", "players=2", nil)
		h.send("from: Olga <olga@example.org>\nsubject: watch 1\n")
		h.send("from: Olga <olga@example.org>\nsubject: Re: [pbem #1 {token 1 olga@example.org}] toy\n\nwatch 1\n")
		ms := h.queued("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\n+1\n")
		olga := outTo(t, ms, "olga@example.org")
		m := regexp.MustCompile(`^<https://pbem\.example\.org/unsubscribe\?a=olga%40example\.org&k=watch&t=([A-Za-z0-9_-]+)>, <mailto:referee@pbem\.example\?subject=unsubscribe%20watch%20([A-Za-z0-9_-]+)>$`).
			FindStringSubmatch(olga.Unsubscribe)
		if m == nil || m[1] != m[2] {
			t.Fatalf("the watcher's List-Unsubscribe is %q", olga.Unsubscribe)
		}
		if bob := outTo(t, ms, "bob@example.org"); bob.Unsubscribe != "" {
			t.Errorf("a player's game mail has List-Unsubscribe %q", bob.Unsubscribe)
		}
		tok := m[1]
		for _, bad := range []string{
			"from: Olga <olga@example.org>\nsubject: unsubscribe watch " + tok[:len(tok)-1] + "x\n",
			"from: Olga <olga@example.org>\nsubject: unsubscribe digest " + tok + "\n",
			"from: Pat <pat@example.org>\nsubject: unsubscribe watch " + tok + "\n",
		} {
			if out := h.send(bad); !strings.Contains(out, "token does not stop") {
				t.Errorf("%q answered:\n%s\nwant a refusal", bad, out)
			}
		}
		if off, err := h.store.Unsubscribed(h.ctx, "olga@example.org", archive.UnsubWatch); err != nil || off {
			t.Fatalf("unsubscribed by a refused request: %v, %v", off, err)
		}
		if out := h.send("from: Olga <olga@example.org>\nsubject: unsubscribe watch " + tok + "\n"); !strings.Contains(out, "no more mail of the games you watch") {
			t.Fatalf("unsubscribe answered:\n%s", out)
		}
		ms = h.queued("from: Bob <bob@example.org>\nto: {plus 1 bob@example.org}\n\n+2\n")
		for _, o := range ms {
			if o.To[0].Addr == "olga@example.org" {
				t.Errorf("the unsubscribed watcher still gets the game's mail:\n%s", o.Text)
			}
		}
		outTo(t, ms, "alice@example.org") // the player's mail keeps coming

		// asking again, with the watcher's token, undoes it
		h.send("from: Olga <olga@example.org>\nsubject: Re: [pbem #1 {token 1 olga@example.org}] toy\n\nwatch 1\n")
		ms = h.queued("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\n+1\n")
		outTo(t, ms, "olga@example.org")
	})
}
