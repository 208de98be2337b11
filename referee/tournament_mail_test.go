package referee_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"pbem/archive"
	"pbem/referee"
	"pbem/referee/tournament"
)

// tournamentRE matches the tournament placeholders of a transcript:
// {seat ID N} is the address of seat N of game ID, {ttoken T ADDR} the
// token of ADDR in tournament T ({ttoken T director}: the director's).
var tournamentRE = regexp.MustCompile(`\{(seat|ttoken) (\d+) ([^ }]+)\}`)

func (h *harness) expandTournaments(s string) string {
	// Twice: {ttoken T {seat ID N}} names the entrant who sits there.
	return h.expandTournamentsOnce(h.expandTournamentsOnce(s))
}

func (h *harness) expandTournamentsOnce(s string) string {
	return tournamentRE.ReplaceAllStringFunc(s, func(m string) string {
		p := tournamentRE.FindStringSubmatch(m)
		id, _ := strconv.ParseInt(p[2], 10, 64)
		if p[1] == "seat" {
			g, err := h.store.Game(h.ctx, id)
			n, _ := strconv.Atoi(p[3])
			if err != nil || n >= len(g.Seats) {
				h.t.Fatalf("%s: no such seat (%v)", m, err)
			}
			return g.Seats[n].Player.Addr
		}
		t, err := h.store.Tournament(h.ctx, id)
		if err != nil {
			h.t.Fatalf("%s: %v", m, err)
		}
		if p[3] == "director" {
			return t.DirectorToken
		}
		i := t.Player(p[3])
		if i < 0 {
			h.t.Fatalf("%s: no such entrant", m)
		}
		return t.Players[i].Token
	})
}

// dumpStandings prints the standings of tournament T (as the referee
// mails them) and the archive's crosstable of its event, and checks that
// they agree: the score always, once the points of byes and of games
// decided without play (which the archive, holding games only, does not
// have) are set aside; the games played, Sonneborn-Berger and the rank
// wherever neither exists and the order is the crosstable's (round robins
// and tables).
func (h *harness) dumpStandings(b *strings.Builder, arg string) {
	h.t.Helper()
	id, _ := strconv.ParseInt(strings.TrimPrefix(arg, "T"), 10, 64)
	t, err := h.store.Tournament(h.ctx, id)
	if err != nil {
		h.t.Fatalf("standings %s: %v", arg, err)
	}
	ev := referee.TournamentEvent(t)
	st, err := ev.Standings()
	if err != nil {
		h.t.Fatalf("standings %s: %v", arg, err)
	}
	xt, err := h.store.Crosstable(h.ctx, testLookup, t.Name, archive.Filter{})
	if err != nil {
		h.t.Fatalf("crosstable %s: %v", t.Name, err)
	}
	fmt.Fprintf(b, "tournament T%d %s: %s\n\n", t.ID, t.Status, t.Name)
	st.WriteText(b)
	b.WriteString("\n")
	xt.WriteText(b)

	// Points the archive cannot see: byes, and games without a referee
	// game (forfeited before they were started).
	unseen := map[string]int{}
	bye := 2 // half points: one point, or a table's average
	if ev.Format == tournament.Tables {
		bye = t.Seats - 1
	}
	for _, by := range ev.Byes {
		switch {
		case by.Round > ev.Paired():
		case by.Kind == tournament.HalfPoint:
			unseen[by.Player]++
		case by.Kind == tournament.PairingBye && !ev.UnscoredByes:
			unseen[by.Player] += bye
		}
	}
	unplayed := false
	for _, g := range t.Games {
		if g.GameID != 0 || g.Ranks == nil {
			continue
		}
		unplayed = true
		for i, a := range g.Players {
			for j := range g.Players {
				switch {
				case i == j:
				case g.Ranks[i] < g.Ranks[j]:
					unseen[a] += 2
				case g.Ranks[i] == g.Ranks[j]:
					unseen[a]++
				}
			}
		}
	}
	rows := map[string]*archive.Standing{}
	for _, r := range xt.Players {
		rows[r.Key] = r
	}
	exact := len(unseen) == 0 && !unplayed && ev.Format != tournament.Swiss
	compared := "score"
	if exact {
		compared = "score, games, Sonneborn-Berger and rank"
	}
	for _, r := range st.Players {
		x := rows[r.Player.ID]
		if x == nil {
			if r.Games > 0 && !unplayed {
				h.t.Errorf("T%d: %s played %d games but is not in the crosstable", t.ID, r.Player.Name, r.Games)
			}
			continue
		}
		if r.Points != x.Points+unseen[r.Player.ID] {
			h.t.Errorf("T%d: %s: standings %d half points, crosstable %d (+%d unseen)", t.ID, r.Player.Name, r.Points, x.Points, unseen[r.Player.ID])
		}
		if exact && (r.Games != x.Games || r.SB != x.SB || r.Rank != x.Rank) {
			h.t.Errorf("T%d: %s: standings games %d, SB %d, rank %d; crosstable games %d, SB %d, rank %d",
				t.ID, r.Player.Name, r.Games, r.SB, r.Rank, x.Games, x.SB, x.Rank)
		}
	}
	if len(xt.Players) > len(st.Players) {
		h.t.Errorf("T%d: the crosstable has %d players, the standings %d", t.ID, len(xt.Players), len(st.Players))
	}
	fmt.Fprintf(b, "\nstandings and crosstable agree on the %s\n", compared)
}

var tournamentTagRE = regexp.MustCompile(`\[pbem T(\d+)`)

// checkTournamentMail: a tournament's mail shows no entrant's address to
// anyone but the director (players of one game see each other's
// addresses in that game's mail, not here), and no token but the
// recipient's.
func (h *harness) checkTournamentMail(o archive.Outgoing) {
	h.t.Helper()
	m := tournamentTagRE.FindStringSubmatch(o.Subject)
	if m == nil {
		return
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	t, err := h.store.Tournament(h.ctx, id)
	if err != nil {
		return // not stored: a refused request
	}
	to := strings.ToLower(o.To[0].Addr)
	text := strings.ToLower(o.Subject + "\n" + o.Text)
	director := to == strings.ToLower(t.Director.Addr)
	for _, p := range t.Players {
		a := strings.ToLower(p.Address.Addr)
		if a == to {
			continue
		}
		if !director && strings.Contains(text, a) {
			h.t.Errorf("tournament mail to %s shows the address of %s:\n%s\n%s", to, a, o.Subject, o.Text)
		}
		if strings.Contains(text, p.Token) {
			h.t.Errorf("tournament mail to %s shows the token of %s:\n%s\n%s", to, a, o.Subject, o.Text)
		}
	}
	if !director && strings.Contains(text, t.DirectorToken) {
		h.t.Errorf("tournament mail to %s shows the director's token:\n%s\n%s", to, o.Subject, o.Text)
	}
}
