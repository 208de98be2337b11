package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/archive"
	"pbem/referee"
	"pbem/referee/tournament"
)

// TestTournamentPair pairs round 3 of a Swiss of 21 from its report: the
// pairs (in board order, the bye last) are those a FIDE-endorsed Dutch
// engine gives for the same file.
func TestTournamentPair(t *testing.T) {
	code, out, errs := run(t, "", "tournament", "pair", "--format", "pairs", "testdata/trf/swiss21.trf")
	require.Equal(t, 0, code, errs)
	want := "11\n17 11\n19 16\n21 15\n2 13\n3 14\n12 4\n5 18\n20 8\n9 1\n7 6\n10 0\n"
	assert.Equal(t, want, out)

	code, out, errs = run(t, "", "tournament", "pair", "testdata/trf/swiss21.trf")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "swisscmp: round 3 of 9\n\n  1.   17 Player 17 - 11 Player 11\n")
	assert.Contains(t, out, "bye: 10 Player 10\n")

	for _, tc := range []struct {
		args  []string
		stdin string
		err   string
	}{
		{[]string{"tournament", "pair"}, "", "expected one tournament report FILE"},
		{[]string{"tournament", "pair", "--format", "xml", "-"}, "", `unknown --format "xml"; expected text or pairs`},
		{[]string{"tournament", "swap"}, "", `unknown subcommand "swap"; expected pair`},
		{[]string{"tournament", "pair", "-"}, "XXR 3\n001    1      Bob\n", "TRF line 2: a player line is 17 columns long, want at least 84"},
		{[]string{"tournament", "pair", "-"}, fmt.Sprintf("XXR 3\n%-80s%4s\n", "001    2      Bob", "0.0"), "TRF line 2: pairing number \"   2\", want 1"},
		{[]string{"tournament", "pair", "-"}, "XXA    1  1.3\n", `TRF line 1: XXA: round 1: "1.3" is not a number of points in halves`},
	} {
		code, _, errs := run(t, tc.stdin, tc.args...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Contains(t, errs, tc.err, "%v", tc.args)
	}
}

// TestArchiveExportTRF runs a Swiss of five by mail and exports it after
// each round: the report holds the rounds complete, games and byes as the
// referee stored them with their results, and pbem tournament pair on it
// gives the round the referee has paired next.
func TestArchiveExportTRF(t *testing.T) {
	ctx := context.Background()
	data := filepath.Join(t.TempDir(), "data")
	store, err := archive.Open(ctx, data, nil)
	require.NoError(t, err)
	defer store.Close()
	ref, err := referee.New(store, &referee.Options{Address: refereeAddr})
	require.NoError(t, err)
	m := &mailTournament{t: t, ctx: ctx, store: store, ref: ref}
	id := m.start(`"Winter Cup" castles swiss rounds=3 days=3`, "Ann", "Bob", "Cy", "Dee", "Eve")
	checkExportRounds(t, m, data, id, "Winter Cup", 3)

	code, _, errs := run(t, "", "archive", "export", "--data", data, "--format", "trf", "Summer Cup")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `no tournament named "Summer Cup"`)
	code, _, errs = run(t, "", "archive", "export", "--data", data, "--format", "trf")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "expected its name (EVENT) or T<id>")
	code, out, errs := run(t, "", "archive", "export", "--data", data, "--format", "trf", fmt.Sprintf("T%d", id))
	assert.Equal(t, 0, code, errs)
	assert.Contains(t, out, "012 Winter Cup\nXXR 3\n")
}

// TestArchiveExportTRFCustoms does the same with the customs of a club
// Swiss (issue 40): seven players over four accelerated rounds, half-point
// byes asked for and an absence set by the director, all before the
// start: every report has the XXA lines, the H and Z of the rounds played
// and of the round paired next, and pbem tournament pair on it gives the
// round the referee paired.
func TestArchiveExportTRFCustoms(t *testing.T) {
	ctx := context.Background()
	data := filepath.Join(t.TempDir(), "data")
	store, err := archive.Open(ctx, data, nil)
	require.NoError(t, err)
	defer store.Close()
	ref, err := referee.New(store, &referee.Options{Address: refereeAddr})
	require.NoError(t, err)
	m := &mailTournament{t: t, ctx: ctx, store: store, ref: ref}
	dora := referee.Address{Name: "Dora", Addr: "dora@example.org"}
	m.send(dora, refereeAddr, "", `tournament new "Club Cup" castles swiss rounds=4 days=3 byes=2 accelerated`)
	m.tours++
	id := m.tours
	m.send(dora, refereeAddr, tagged(id, m.tournament(id).DirectorToken), fmt.Sprintf("tournament confirm T%d", id))
	for _, p := range []string{"Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus"} {
		a := referee.Address{Name: p, Addr: strings.ToLower(p) + "@example.org"}
		m.send(a, refereeAddr, "", fmt.Sprintf("join T%d", id))
		tr := m.tournament(id)
		m.send(a, refereeAddr, tagged(id, tr.Players[tr.Player(a.Addr)].Token), fmt.Sprintf("join T%d", id))
	}
	tr := m.tournament(id)
	ask := func(who, command string) {
		p := tr.Players[tr.Player(strings.ToLower(who)+"@example.org")]
		m.send(p.Address, refereeAddr, tagged(id, p.Token), fmt.Sprintf(command, id))
	}
	ask("Ann", "tournament bye T%d 2")
	ask("Ann", "tournament bye T%d 4")
	ask("Cy", "tournament bye T%d 3 zero")
	ask("Gus", "tournament bye T%d 1")
	m.send(dora, refereeAddr, tagged(id, tr.DirectorToken), fmt.Sprintf("tournament absent T%d 2 eve@example.org", id))
	require.Len(t, m.tournament(id).Byes, 5, "four byes asked for and an absence")
	m.send(dora, refereeAddr, tagged(id, tr.DirectorToken), fmt.Sprintf("tournament start T%d", id))
	require.Equal(t, archive.Running, m.tournament(id).Status, "the tournament did not start")
	checkExportRounds(t, m, data, id, "Club Cup", 4)
	_, out, _ := run(t, "", "archive", "export", "--data", data, "--format", "trf", "Club Cup")
	assert.Contains(t, out, "XXA    1  1.0  0.5\n", "the Baku points of seed 1: 1 in round 1, 1/2 in round 2")
}

// checkExportRounds plays tournament id (named name, of rounds rounds)
// round by round and, after each but the last, exports it as a report:
// it holds the rounds complete, games and byes (of every kind) as the
// referee stored them with their results, and pbem tournament pair on it
// gives the round the referee has paired next.
func checkExportRounds(t *testing.T, m *mailTournament, data string, id int64, name string, rounds int) {
	t.Helper()
	for round := 1; round < rounds; round++ {
		m.play(id)
		tr := m.tournament(id)
		want := referee.TournamentEvent(tr)
		code, out, errs := run(t, "", "archive", "export", "--data", data, "--format", "trf", name)
		require.Equal(t, 0, code, errs)
		got, err := tournament.ReadTRF(strings.NewReader(out))
		require.NoError(t, err, out)
		no := map[string]string{}
		for i, p := range want.Players {
			no[p.ID] = strconv.Itoa(i + 1)
			assert.Equal(t, p.Name, got.Players[i].Name)
		}
		var wantGames, gotGames []string
		for _, g := range want.Games {
			if g.Round > round {
				continue
			}
			wantGames = append(wantGames, fmt.Sprint(g.Round, no[g.Players[0]], no[g.Players[1]], g.Ranks))
		}
		for _, g := range got.Games {
			gotGames = append(gotGames, fmt.Sprint(g.Round, g.Players[0], g.Players[1], g.Ranks))
		}
		assert.ElementsMatch(t, wantGames, gotGames, out)
		var wantByes []tournament.Bye
		for _, b := range want.Byes {
			// The report holds the rounds complete and the byes asked
			// for the next, which it cannot tell from a withdrawal when
			// they are absences.
			if b.Round <= round || b.Round == round+1 && b.Kind == tournament.HalfPoint {
				wantByes = append(wantByes, tournament.Bye{Round: b.Round, Player: no[b.Player], Kind: b.Kind})
			}
		}
		assert.Equal(t, wantByes, got.Byes, out)
		assert.Equal(t, rounds, got.Rounds)

		// The referee has paired the next round already.
		var pairs strings.Builder
		var games []tournament.Game
		for _, g := range want.Games {
			if g.Round == round+1 {
				games = append(games, g)
			}
		}
		slices.SortFunc(games, func(a, b tournament.Game) int { return a.Board - b.Board })
		require.NotEmpty(t, games)
		var byes []string
		for _, b := range want.Byes {
			if b.Round == round+1 && b.Kind == tournament.PairingBye {
				byes = append(byes, no[b.Player])
			}
		}
		fmt.Fprintln(&pairs, len(games)+len(byes))
		for _, g := range games {
			fmt.Fprintln(&pairs, no[g.Players[0]], no[g.Players[1]])
		}
		for _, b := range byes {
			fmt.Fprintln(&pairs, b, 0)
		}
		code, out, errs = run(t, out, "tournament", "pair", "--format", "pairs", "-")
		require.Equal(t, 0, code, errs)
		assert.Equal(t, pairs.String(), out, "round %d", round+1)
	}
}
