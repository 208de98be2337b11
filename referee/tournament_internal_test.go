package referee

import "testing"

// The tournament tag and the game tag live side by side in subjects: each
// reader finds its own and ignores the other.
func TestTournamentTag(t *testing.T) {
	for _, c := range []struct {
		subject   string
		tid       int64
		ttoken    string
		game      int64
		gameToken string
	}{
		{"[pbem T7 k7x9qabc] Autumn Cup: round 2", 7, "k7x9qabc", 0, ""},
		{"Re: [PBEM t12 K7X9QABC] Autumn Cup: results", 12, "k7x9qabc", 0, ""},
		{"[pbem T3] Autumn Cup: standings", 3, "", 0, ""},
		{"[pbem #12 k7x9qabc] castles: Ann vs Bob - Bob to move", 0, "", 12, "k7x9qabc"},
		{"Re: [pbem #4] castles", 0, "", 4, ""},
		{"[pbem] help", 0, "", 0, ""},
		{"[pbem T] nothing", 0, "", 0, ""},
	} {
		t.Run(c.subject, func(t *testing.T) {
			id, tok := tournamentTag(c.subject)
			if id != c.tid || tok != c.ttoken {
				t.Errorf("tournamentTag(%q) = %d, %q; want %d, %q", c.subject, id, tok, c.tid, c.ttoken)
			}
			_, cr := subjectTag(c.subject)
			if cr.game != c.game || cr.token != c.gameToken {
				t.Errorf("subjectTag(%q) = game %d, token %q; want %d, %q", c.subject, cr.game, cr.token, c.game, c.gameToken)
			}
		})
	}
}

func TestParseTournamentID(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"T7", 7, true}, {"t7", 7, true}, {"#7", 7, true}, {"7", 7, true},
		{"T0", 0, false}, {"Tx", 0, false}, {"", 0, false}, {"T-1", 0, false},
	} {
		if got, ok := parseTournamentID(c.in); got != c.want || ok != c.ok {
			t.Errorf("parseTournamentID(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
