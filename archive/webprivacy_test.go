package archive

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/notation"
)

// refereeEntries archives the games of clubCup numbered in private as
// finished games of private referee games, and the others as the
// referee's public games.
func refereeEntries(t *testing.T, s *Store, private ...int) map[int]int64 {
	t.Helper()
	ctx := context.Background()
	entries := map[int]int64{}
	var es []*Entry
	var gs []*Game
	notation.CheckFile("x", []byte(clubCup), lookup, func(ch *notation.Checked) {
		g := newGame(t, s)
		g.Status = Over
		g.Options.Private = false
		for _, n := range private {
			g.Options.Private = g.Options.Private || n == ch.Index
		}
		e := EntryOf(ch.Game, t0)
		e.GameID, e.Rated = g.ID, true
		gs = append(gs, g)
		es = append(es, e)
	})
	require.NoError(t, s.Commit(ctx, &Change{At: t0, Games: gs, Entries: es}))
	var rows []*Found
	require.NoError(t, s.Query(ctx, lookup, Filter{}, func(fd *Found) error {
		rows = append(rows, fd)
		return nil
	}))
	for i, fd := range rows {
		entries[i+1] = fd.ID
	}
	return entries
}

// TestPublicFilterLeavesOutPrivateGames: Filter.Public leaves the private
// referee games out of every query, crosstable and rating the web reads;
// without it (the operator's commands) they are there.
func TestPublicFilterLeavesOutPrivateGames(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		entries := refereeEntries(t, s, 2, 4)
		assert.Len(t, ids(t, s, Filter{}), 10)
		got := ids(t, s, Filter{Public: true})
		assert.Len(t, got, 8)
		assert.NotContains(t, got, entries[2])
		assert.NotContains(t, got, entries[4])

		// Game 2 (Carol against Dan) and 4 (Bob against Dan): Dan's only
		// other games are 5 (a draw with Alice) and 7 (rpp).
		all, err := s.Crosstable(ctx, lookup, "Club Cup", Filter{})
		require.NoError(t, err)
		pub, err := s.Crosstable(ctx, lookup, "Club Cup", Filter{Public: true})
		require.NoError(t, err)
		assert.Equal(t, all.Games-2, pub.Games)
		for _, st := range pub.Players {
			if st.Key == "dan@example.org" {
				assert.Equal(t, 2, st.Games, "Dan's public games")
			}
		}

		lists, err := s.RatingsOf(ctx, lookup, Filter{Game: "castles", Public: true})
		require.NoError(t, err)
		full, err := s.Ratings(ctx, lookup, "castles")
		require.NoError(t, err)
		require.Len(t, lists, 1)
		assert.Equal(t, full[0].Games-2, lists[0].Games)

		hs, err := s.RatingHistories(ctx, lookup, Filter{Public: true})
		require.NoError(t, err)
		for _, h := range hs {
			for _, p := range h.Points {
				assert.NotEqual(t, entries[2], p.EntryID)
				assert.NotEqual(t, entries[4], p.EntryID)
			}
		}
	})
}

// TestRecentGamesShown: the web's lists hold neither private games nor
// requests their inviter has not confirmed.
func TestRecentGamesShown(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		add := func(edit func(*Game)) *Game {
			g := newGame(t, s)
			edit(g)
			require.NoError(t, s.Commit(ctx, &Change{At: t0, Games: []*Game{g}}))
			return g
		}
		plain := add(func(g *Game) {})
		private := add(func(g *Game) { g.Options.Private = true })
		unconfirmed := add(func(g *Game) {
			g.Options.Inviter = "ALICE@example.org"
			g.Seats[0].Joined = false
		})
		confirmed := add(func(g *Game) { g.Options.Inviter = "alice@example.org" })
		gs, err := s.RecentGames(ctx, []string{Invited}, 10)
		require.NoError(t, err)
		var got []int64
		for _, g := range gs {
			got = append(got, g.ID)
		}
		assert.ElementsMatch(t, []int64{plain.ID, confirmed.ID}, got)
		for _, g := range []*Game{plain, private, unconfirmed, confirmed} {
			assert.Equal(t, g == plain || g == confirmed, Shown(g), "Shown(game %d)", g.ID)
		}
	})
}

// TestNameFilter: Filter.Name matches the start of a public name, never
// an address, and finds a name written in look-alike forms.
func TestNameFilter(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		s := open(t, where)
		importText(t, s, clubCup)
		alice := ids(t, s, Filter{Name: "alice"})
		assert.Equal(t, []int64{1, 3, 5, 7, 8, 9, 10}, alice, "Alice, named or by her address's local part")
		assert.Equal(t, alice, ids(t, s, Filter{Name: "Al"}), "a prefix")
		assert.Equal(t, alice, ids(t, s, Filter{Name: "ＡＬＩＣＥ"}), "full-width letters")
		assert.Equal(t, alice, ids(t, s, Filter{Name: "al\u200bice"}), "a zero-width space")
		for _, addr := range []string{"alice@", "@example", "example.org", "lice"} {
			assert.Empty(t, ids(t, s, Filter{Name: addr}), "Name %q", addr)
		}
		assert.NotEmpty(t, ids(t, s, Filter{Player: "example.org"}), "the operator's Player filter still reads addresses")
	})
}

func TestPublicName(t *testing.T) {
	for in, want := range map[string]string{
		"Alice <alice@example.org>":      "Alice",
		"carol@pbem.local":               "carol",
		"carol@pbem.local <x@y.org>":     "carol",
		"Bob (bob@example.org)":          "anonymous",
		"":                               "anonymous",
		"Ａｌｉｃｅ":                          "Alice",
		"Ali\u202ece":                    "Alice",
		"\u2067Eve\u2069 \u200bSmith":    "Eve Smith",
		"Dan\tSmith":                     "Dan Smith",
		"carol＠example.org":              "carol",
		"\"Mallory\" <mallory@evil.org>": "Mallory",
	} {
		assert.Equal(t, want, PublicName(in), "PublicName(%q)", in)
	}
}

// TestShownTournamentsNamed: a tournament its director has not confirmed
// (anyone may have asked for it, under any name) is not shown; one taking
// entries, running or finished is.
func TestShownTournamentsNamed(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		var want []int64
		for _, status := range []string{"proposed", Entering, Running, Finished} {
			tr := newTournament(t, s)
			tr.Status = status
			require.NoError(t, s.Commit(ctx, &Change{At: t0, Tournaments: []*Tournament{tr}}))
			if status != "proposed" {
				want = append(want, tr.ID)
			}
		}
		shown, err := s.ShownTournamentsNamed(ctx, "autumn cup")
		require.NoError(t, err)
		var got []int64
		for _, tr := range shown {
			got = append(got, tr.ID)
		}
		assert.Equal(t, want, got)
	})
}

// TestPublicTextSearch: with Filter.Public the words search the tags as a
// stranger sees them, so that no address can be read out letter by
// letter.
func TestPublicTextSearch(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		s := open(t, where)
		importText(t, s, clubCup)
		assert.NotEmpty(t, ids(t, s, Filter{Text: []string{"example.org"}}), "the operator's search reads addresses")
		for _, w := range []string{"example.org", "@ex", "dan@", "alice@example.org"} {
			assert.Empty(t, ids(t, s, Filter{Text: []string{w}, Public: true}), "Text %q", w)
		}
		assert.Equal(t, ids(t, s, Filter{Text: []string{"dan"}}), ids(t, s, Filter{Text: []string{"dan"}, Public: true}), "names are found")
		assert.Equal(t, []int64{3, 7}, ids(t, s, Filter{Text: []string{"alice", "carol"}, Public: true}), "alice@example.org (game 3) is alice")
	})
}

func TestPublicTag(t *testing.T) {
	for in, want := range map[string]string{
		"Dan <dan@example.org>":        "Dan",
		"dan@example.org":              "dan",
		"dan﹫example.org":              "dan",
		"Cup of dan@example.org, 2026": "Cup of dan, 2026",
		"Cup\u202e 2026":               "Cup 2026",
		"2026.11.20":                   "2026.11.20",
	} {
		assert.Equal(t, want, PublicTag(in), "PublicTag(%q)", in)
	}
	assert.Equal(t, "carol (First) resigned; Carol wrote", PublicText("carol@pbem.local (First) resigned; Carol <carol@pbem.local> wrote"))
}

// BenchmarkPublicSearch measures the web's searches of an archive of
// 10,000 games beside the operator's: by player (a name by the index, a
// name the index cannot see by every game) and by words.
func BenchmarkPublicSearch(b *testing.B) {
	path := benchCorpus(b, benchSizes[0])
	ctx := context.Background()
	s, err := Open(ctx, b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if _, err := s.ImportReader(ctx, "corpus", f, lookup, nil); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		f    Filter
	}{
		{"operator-player", Filter{Player: "player 3 <p3"}},
		{"web-name", Filter{Name: "player 3", Public: true}},
		{"web-name-fullwidth", Filter{Name: "ｐｌａｙｅｒ 3", Public: true}},
		{"operator-words", Filter{Text: []string{"player 3", "corpus ziggurat43"}}},
		{"web-words", Filter{Text: []string{"player 3", "corpus ziggurat43"}, Public: true}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				found := 0
				if err := s.Query(ctx, lookup, tc.f, func(*Found) error { found++; return nil }); err != nil || found == 0 {
					b.Fatalf("search: %d found, %v", found, err)
				}
			}
		})
	}
}
