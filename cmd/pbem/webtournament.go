package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"pbem/archive"
	"pbem/archive/web"
	"pbem/referee"
	"pbem/referee/tournament"
)

// webTournaments is the event page's hook (web.Options.Tournaments): the
// tournaments the referee runs under an event's name that their director
// has confirmed (archive.ShownTournamentsNamed), with the standings and
// the pairings it mails, players named as its mails name them.
func webTournaments(store *archive.Store) func(ctx context.Context, event string) ([]*web.TournamentView, error) {
	return func(ctx context.Context, event string) ([]*web.TournamentView, error) {
		ts, err := store.ShownTournamentsNamed(ctx, event)
		if err != nil {
			return nil, err
		}
		var out []*web.TournamentView
		for _, t := range ts {
			v, err := tournamentView(t)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
}

// tournamentFormats maps the stored format words to the core's formats,
// as the referee's tournament new stores them.
var tournamentFormats = map[string]tournament.Format{
	"roundrobin": tournament.RoundRobin,
	"double":     tournament.DoubleRoundRobin,
	"swiss":      tournament.Swiss,
	"tables":     tournament.Tables,
}

// tournamentEvent is the core's view of a stored tournament, built as the
// referee builds it to pair rounds and mail the standings (the test
// compares the page with the mail).
func tournamentEvent(t *archive.Tournament) (*tournament.Event, error) {
	if _, ok := tournamentFormats[t.Format]; !ok {
		return nil, fmt.Errorf("tournament T%d: unknown format %q; expected roundrobin, double, swiss or tables", t.ID, t.Format)
	}
	return referee.TournamentEvent(t), nil
}

// entrantID is an entrant's address as the referee keys entrants: trimmed
// and lower-cased.
func entrantID(addr string) string {
	a := strings.TrimSpace(addr)
	a = strings.TrimPrefix(strings.TrimPrefix(a, "mailto:"), "MAILTO:")
	return strings.ToLower(strings.Trim(a, "<>,;"))
}

// entrantName is how the referee's tournament mails name an entrant: the
// display name, else the address's local part; never the address.
func entrantName(p archive.TournamentPlayer) string {
	if p.Address.Name != "" {
		return p.Address.Name
	}
	local, _, _ := strings.Cut(p.Address.Addr, "@")
	return local
}

// tournamentView is what the event page shows of t.
func tournamentView(t *archive.Tournament) (*web.TournamentView, error) {
	e, err := tournamentEvent(t)
	if err != nil {
		return nil, err
	}
	v := &web.TournamentView{ID: t.ID, Name: t.Name, Game: t.Game, Format: e.Format.String(), Status: t.Status, Rounds: t.Rounds}
	if e.Format == tournament.Tables {
		v.Format = fmt.Sprintf("tables of %d", t.Seats)
	}
	if t.Status == archive.Entering {
		for _, p := range t.Players {
			if p.Joined {
				v.Joined = append(v.Joined, entrantName(p))
			}
		}
		return v, nil
	}
	st, err := e.Standings()
	if err != nil {
		return nil, fmt.Errorf("tournament T%d: %w", t.ID, err)
	}
	v.Rounds, v.Completed = st.Rounds, st.Completed
	half := func(h int) string { return strconv.FormatFloat(float64(h)/2, 'f', 1, 64) }
	quarter := func(q int) string { return strconv.FormatFloat(float64(q)/4, 'f', 2, 64) }
	swiss := e.Format == tournament.Swiss
	if swiss {
		v.TieBreaks = []string{"Buchholz", "median Buchholz"}
	} else {
		v.TieBreaks = []string{"Sonneborn-Berger"}
	}
	for _, r := range st.Players {
		row := web.TournamentStanding{Rank: r.Rank, Name: r.Player.Name, Score: half(r.Points), Games: r.Games, Byes: r.Byes, Withdrawn: r.Withdrawn}
		if swiss {
			row.TieBreaks = []string{half(r.Buchholz), half(r.MedianBuchholz)}
		} else {
			row.TieBreaks = []string{quarter(r.SB)}
		}
		v.Standings = append(v.Standings, row)
	}
	v.Note = tournamentNote(e.Format, t.Seats)

	name := map[string]string{}
	for _, p := range e.Players {
		name[p.ID] = cmp.Or(p.Name, "?")
	}
	for n := 1; n <= e.Paired(); n++ {
		rd := web.TournamentRound{Number: n}
		for _, g := range t.Games {
			if g.Round != n {
				continue
			}
			pg := web.TournamentGame{Board: g.Board, GameID: g.GameID, Ranks: slices.Clone(g.Ranks), Forfeit: g.Forfeit}
			for _, id := range g.Players {
				pg.Players = append(pg.Players, name[entrantID(id)])
			}
			rd.Games = append(rd.Games, pg)
		}
		slices.SortStableFunc(rd.Games, func(a, b web.TournamentGame) int { return cmp.Compare(a.Board, b.Board) })
		for _, b := range t.Byes {
			if b.Round != n {
				continue
			}
			switch b.Kind {
			case archive.ByeHalf:
				rd.HalfByes = append(rd.HalfByes, name[entrantID(b.Player)])
			case archive.ByeZero:
				rd.Absent = append(rd.Absent, name[entrantID(b.Player)])
			default:
				rd.Byes = append(rd.Byes, name[entrantID(b.Player)])
			}
		}
		v.Pairings = append(v.Pairings, rd)
	}
	return v, nil
}

// tournamentNote says how the standings count byes, forfeits and ties.
func tournamentNote(f tournament.Format, seats int) string {
	switch f {
	case tournament.RoundRobin, tournament.DoubleRoundRobin:
		return "Ties are broken by Sonneborn-Berger. A bye scores nothing: in a round robin of an odd number every player sits out once. A game forfeited by a withdrawal scores like a loss for the player who withdrew and adds nothing to Sonneborn-Berger."
	case tournament.Swiss:
		return "Ties are broken by Buchholz (the opponents' scores) and median Buchholz (without the highest and the lowest). A bye scores 1 point and, like a game forfeited by a withdrawal, counts in Buchholz as an opponent with the player's own score; the crosstable counts games only."
	}
	return fmt.Sprintf("A table scores %d points to the winner, one less per place (seats minus rank, pair by pair); ties are broken by Sonneborn-Berger. A bye scores a table's average, which the crosstable, counting games only, does not show.", seats-1)
}
