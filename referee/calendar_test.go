package referee_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"pbem/archive"
)

// calendarURL finds the calendar address in a reply.
var calendarURL = regexp.MustCompile(`https://pbem\.example\.org(/players/[^/\s]+/deadlines\.ics\?key=([A-Za-z0-9_-]+))`)

// TestCalendarCommand: "calendar" in a reply to a game's mail answers with
// the address of the player's calendar, whose key the store recognises
// as the player's; "calendar revoke" gives a new address and the old key
// stops working; without a game's token, or with another word, the
// command is refused saying what is expected.
func TestCalendarCommand(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := newHarness(t, db, map[string]string{"web-base-url": "https://pbem.example.org/"})
		startGame(t, h, "castles", "", nil)
		ask := func(body string) (path, key string) {
			t.Helper()
			out := h.send("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\n" + body + "\n")
			m := calendarURL.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("%s answered without a calendar address:\n%s", body, out)
			}
			return m[1], m[2]
		}
		path, key := ask("calendar")
		if want := archive.CalendarPath("Alice", key); path != want {
			t.Errorf("calendar mailed %s, want %s", path, want)
		}
		p, err := h.store.CalendarOwner(h.ctx, key)
		if err != nil || p.Address.Addr != "alice@example.org" {
			t.Fatalf("the store does not find the owner of the key mailed: %v, %v", p, err)
		}
		if _, again := ask("calendar"); again != key {
			t.Errorf("a second calendar gave the key %s, want the same %s", again, key)
		}
		_, fresh := ask("calendar revoke")
		if fresh == key {
			t.Fatalf("calendar revoke kept the key %s", key)
		}
		if _, err := h.store.CalendarOwner(h.ctx, key); !errors.Is(err, archive.ErrNotFound) {
			t.Errorf("the revoked key still finds its owner: %v", err)
		}
		if p, err := h.store.CalendarOwner(h.ctx, fresh); err != nil || p.Address.Addr != "alice@example.org" {
			t.Errorf("the new key does not find Alice: %v, %v", p, err)
		}
		for _, tc := range []struct{ mail, want string }{
			{"from: Alice <alice@example.org>\n\ncalendar\n", "needs your token of one of your games"},
			{"from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\ncalendar please\n", "Calendar takes revoke or nothing, not \"please\".\nExpected: calendar (the address"},
		} {
			out := h.send(tc.mail)
			if !strings.Contains(out, tc.want) || calendarURL.MatchString(out) {
				t.Errorf("%q answered:\n%s\nwant a refusal saying %q and no address", tc.mail, out, tc.want)
			}
		}
	})
}

// TestCalendarWithoutWeb: a referee without web pages says so instead of
// mailing an address it does not serve.
func TestCalendarWithoutWeb(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := newHarness(t, db, nil)
		startGame(t, h, "castles", "", nil)
		out := h.send("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\ncalendar\n")
		if !strings.Contains(out, "serves no web pages") || strings.Contains(out, "deadlines.ics") {
			t.Errorf("calendar without web pages answered:\n%s", out)
		}
	})
}
