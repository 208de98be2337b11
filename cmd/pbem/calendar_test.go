package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"pbem/archive"
	"pbem/archive/web"
	"pbem/referee"
)

// TestCalendarByMailOnTheWeb: the address "calendar" mails, with the
// secrets pbem serve wires, opens the player's calendar on the web pages,
// which has the game where the player has the move; after "calendar
// revoke" the old address is 404 and the new one opens it.
func TestCalendarByMailOnTheWeb(t *testing.T) {
	ctx := context.Background()
	store, err := archive.Open(ctx, filepath.Join(t.TempDir(), "data"), nil)
	require.NoError(t, err)
	defer store.Close()
	ro := &referee.Options{Address: refereeAddr, WebBaseURL: "https://pbem.example.org"}
	require.NoError(t, storeSecrets(ctx, store, ro))
	ref, err := referee.New(store, ro)
	require.NoError(t, err)
	m := &mailTournament{t: t, ctx: ctx, store: store, ref: ref}
	alice := referee.Address{Name: "Alice", Addr: "alice@example.org"}
	bob := referee.Address{Name: "Bob", Addr: "bob@example.org"}
	m.send(alice, refereeAddr, "new castles with bob@example.org first=alice@example.org", "")
	g, err := store.Game(ctx, 1)
	require.NoError(t, err)
	tag := func(seat int) string { return fmt.Sprintf("Re: [pbem #1 %s] castles", g.Seats[seat].Token) }
	m.send(alice, refereeAddr, tag(0), "accept")
	m.send(bob, refereeAddr, tag(1), "accept")
	g, err = store.Game(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, archive.Playing, g.Status, "the game did not start")

	h, err := web.New(store, &web.Options{Lookup: referee.Lookup, Games: catalogIDs(), Private: privateGame})
	require.NoError(t, err)
	urlRE := regexp.MustCompile(`https://pbem\.example\.org(/players/\S+/deadlines\.ics\?key=\S+)`)
	seen := 0
	ask := func(who referee.Address, seat int, body string) string {
		t.Helper()
		m.send(who, refereeAddr, tag(seat), body)
		for id := seen + 1; ; id++ {
			o, err := store.Outgoing(ctx, fmt.Sprint(id))
			if err != nil {
				break
			}
			seen = id
			if o.To[0].Addr == who.Addr {
				if mt := urlRE.FindStringSubmatch(o.Text); mt != nil {
					return mt[1]
				}
			}
		}
		t.Fatalf("%s: no mail to %s with a calendar address", body, who.Addr)
		return ""
	}
	get := func(path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec.Code, rec.Body.String()
	}
	// The game is on the calendar of the player who has the move (in
	// castles, Second places first), and not on the other's.
	events := 0
	var path string
	for seat, who := range []referee.Address{alice, bob} {
		p := ask(who, seat, "calendar")
		code, body := get(p)
		require.Equal(t, http.StatusOK, code, "GET %s:\n%s", p, body)
		if strings.Contains(body, "UID:pbem-game-1@") {
			events++
			require.Contains(t, body, "DTEND:"+g.Deadline.UTC().Format("20060102T150405Z"), "the event does not end at the game's deadline (%v):\n%s", g.Deadline, body)
		}
		if seat == 0 {
			path = p
		}
	}
	require.Equal(t, 1, events, "the game is on %d calendars, want the mover's only", events)
	fresh := ask(alice, 0, "calendar revoke")
	require.NotEqual(t, path, fresh, "calendar revoke mailed the same address")
	code, _ := get(path)
	require.Equal(t, http.StatusNotFound, code, "the revoked address %s still opens the calendar", path)
	code, body := get(fresh)
	require.Equal(t, http.StatusOK, code, "GET %s:\n%s", fresh, body)
	require.True(t, strings.HasSuffix(body, "END:VCALENDAR\r\n"))
}
