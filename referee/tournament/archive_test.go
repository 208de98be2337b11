package tournament_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"pbem/archive"
	"pbem/notation"
	castles "pbem/notation/castles"
	"pbem/referee/tournament"
)

func lookup(id string) (notation.Codec, error) {
	if id == "castles" {
		return castles.New(), nil
	}
	return nil, fmt.Errorf("unknown game %q", id)
}

// records writes the event's games as castles records (one move each, then
// a resignation or an agreed draw), tagged as the referee tags them.
func records(e *tournament.Event) string {
	name := map[string]string{}
	for _, p := range e.Players {
		name[p.ID] = fmt.Sprintf("%s <%s@example.org>", p.Name, p.ID)
	}
	var b strings.Builder
	for _, g := range e.Games {
		result, term := "1-0", "resign"
		switch {
		case g.Ranks[0] > g.Ranks[1]:
			result = "0-1"
		case g.Ranks[0] == g.Ranks[1]:
			result, term = "1/2-1/2", "agreement"
		}
		fmt.Fprintf(&b, "[Game \"castles\"] [Event %q] [Round \"%d\"] [First %q] [Second %q] [Termination %q]\n0... @c3 1. Ca1-b2 %s\n\n",
			e.Name, g.Round, name[g.Players[0]], name[g.Players[1]], term, result)
	}
	return b.String()
}

// crosstable imports the event's games into a fresh archive and returns
// its crosstable, by player name.
func crosstable(t *testing.T, e *tournament.Event) map[string]*archive.Standing {
	t.Helper()
	ctx := context.Background()
	s, err := archive.Open(ctx, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.ImportFile(ctx, "event.pgn", []byte(records(e)), lookup, func(ch *notation.Checked) {
		for _, p := range ch.Problems {
			t.Error(p)
		}
	})
	if err != nil || st.Invalid != 0 {
		t.Fatalf("import: %v, %d invalid", err, st.Invalid)
	}
	xt, err := s.Crosstable(ctx, lookup, e.Name, archive.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]*archive.Standing{}
	for _, r := range xt.Players {
		rows[r.Name] = r
	}
	return rows
}

// play runs the event to its end with random results.
func play(t *testing.T, e *tournament.Event, r *rand.Rand) {
	t.Helper()
	for {
		rd, err := e.Pair()
		if err == tournament.ErrFinished {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := range rd.Games {
			rd.Games[i].Ranks = [][]int{{1, 2}, {2, 1}, {1, 1}}[r.IntN(3)]
		}
		e.Apply(rd)
	}
}

func players(n int) []tournament.Player {
	var ps []tournament.Player
	for i := range n {
		ps = append(ps, tournament.Player{ID: fmt.Sprintf("p%d", i+1), Name: fmt.Sprintf("Player%d", i+1)})
	}
	return ps
}

// TestStandingsAgreeWithArchive: the archive's crosstable of a finished
// event's games gives the standings' score and Sonneborn-Berger. The
// archive sees games only, so it agrees exactly where byes score nothing
// (the round robins, with UnscoredByes); with scored byes each player of
// an odd round robin has one point more than the crosstable, and a Swiss
// without byes agrees on the score.
func TestStandingsAgreeWithArchive(t *testing.T) {
	for _, c := range []struct {
		name     string
		e        tournament.Event
		byeBonus int // half points the standings add per bye
		sameSB   bool
	}{
		{"round robin of 5, byes unscored", tournament.Event{Format: tournament.RoundRobin, Players: players(5), UnscoredByes: true}, 0, true},
		{"round robin of 6", tournament.Event{Format: tournament.RoundRobin, Players: players(6)}, 0, true},
		{"double round robin of 4", tournament.Event{Format: tournament.DoubleRoundRobin, Players: players(4)}, 0, true},
		{"round robin of 5, byes scored", tournament.Event{Format: tournament.RoundRobin, Players: players(5)}, 2, false},
		{"Swiss of 8 over 4 rounds", tournament.Event{Format: tournament.Swiss, Rounds: 4, Players: players(8)}, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := c.e
			e.Name = "Autumn Cup"
			play(t, &e, rand.New(rand.NewPCG(uint64(len(e.Players)), uint64(e.Format))))
			st, err := e.Standings()
			if err != nil {
				t.Fatal(err)
			}
			xt := crosstable(t, &e)
			if len(xt) != len(st.Players) {
				t.Fatalf("crosstable has %d players, standings %d", len(xt), len(st.Players))
			}
			for _, row := range st.Players {
				x := xt[row.Player.Name]
				if x == nil {
					t.Fatalf("%s is not in the crosstable", row.Player.Name)
				}
				if row.Points != x.Points+c.byeBonus*row.Byes {
					t.Errorf("%s: standings %d half points, crosstable %d (+%d per bye)", row.Player.Name, row.Points, x.Points, c.byeBonus)
				}
				if c.sameSB && row.SB != x.SB {
					t.Errorf("%s: standings SB %d quarter points, crosstable %d", row.Player.Name, row.SB, x.SB)
				}
				if c.sameSB && row.Rank != x.Rank {
					t.Errorf("%s: standings rank %d, crosstable %d", row.Player.Name, row.Rank, x.Rank)
				}
			}
		})
	}
}
