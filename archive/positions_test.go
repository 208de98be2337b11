package archive

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/engine"
	"pbem/notation"
)

// transpositions are ziggurat43 games: 1 and 2 reach the same position
// after ply 3 by other move orders, 3 never does, 4 is set up from that
// position and 5 passes through it twice (Gold's Horse leaves and comes
// back).
const transpositions = `[Game "ziggurat43"] [Round "1"]
1. Se3-e4 Si3-h4 2. Sd3-d4 Sh4-g4 *

[Game "ziggurat43"] [Round "2"]
1. Sd3-d4 Si3-h4 2. Se3-e4 Sj3-i4 *

[Game "ziggurat43"] [Round "3"]
1. Sd3-d4 Si3-h4 2. Sd4-e4 *

[Game "ziggurat43"] [Round "4"] [SetUp "1"] [Position "3/SS2s2/S6ss/CCAS3sacc/KCHAS3sahck G"]
1... Sj3-i4 *

[Game "ziggurat43"] [Round "5"]
1. Se3-e4 Si3-h4 2. Sd3-d4 Sh4-g4 3. Sc3-d3 *
`

func searchPositions(t *testing.T, s *Store, f Filter) map[string][]int {
	t.Helper()
	got := map[string][]int{}
	require.NoError(t, s.Query(context.Background(), lookup, f, func(fd *Found) error {
		round, _ := tagValue(fd.Tags, "Round")
		got[round] = fd.Plies
		return nil
	}))
	return got
}

// TestSearchPosition: a search by position finds every game through it,
// by transposition too, with the plies; the index is rebuilt from the
// records (the referee's games are indexed that way).
func TestSearchPosition(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		s := open(t, where)
		importText(t, s, transpositions)
		after, err := AfterPlies(lookup, "ziggurat43", engine.Options{}, "Se3-e4 Si3-h4 Sd3-d4")
		require.NoError(t, err)
		assert.Equal(t, "3/SS2s2/S6ss/CCAS3sacc/KCHAS3sahck G", after)
		other, err := AfterPlies(lookup, "ziggurat43", engine.Options{}, "Sd3-d4 Si3-h4 Se3-e4")
		require.NoError(t, err)
		assert.Equal(t, after, other, "a transposition")
		want := map[string][]int{"1": {3}, "2": {3}, "4": {0}, "5": {3}}
		assert.Equal(t, want, searchPositions(t, s, Filter{Game: "ziggurat43", Position: after}))
		// Any spelling of the text that reads finds the same games.
		assert.Equal(t, want, searchPositions(t, s, Filter{Game: "ziggurat43", Position: "  3/SS2s2/S6ss/CCAS3sacc/KCHAS3sahck   G "}))
		// With another filter too.
		assert.Equal(t, map[string][]int{"5": {3}}, searchPositions(t, s, Filter{Game: "ziggurat43", Position: after, Text: []string{"5"}}))
		start, err := AfterPlies(lookup, "ziggurat43", engine.Options{}, "")
		require.NoError(t, err)
		assert.Equal(t, map[string][]int{"1": {0}, "2": {0}, "3": {0}, "5": {0}}, searchPositions(t, s, Filter{Game: "ziggurat43", Position: start}))

		// Rebuilt from the records.
		_, err = s.db.Exec(`DELETE FROM archive_positions`)
		require.NoError(t, err)
		_, err = s.db.Exec(`INSERT INTO archive_unindexed (entry_id) SELECT id FROM archive`)
		require.NoError(t, err)
		assert.Equal(t, want, searchPositions(t, s, Filter{Game: "ziggurat43", Position: after}))
	})
}

func TestSearchPositionErrors(t *testing.T) {
	for _, tc := range []struct {
		f    Filter
		want string
	}{
		{Filter{Position: "3/7/SSS3sss/CCAS3sacc/KCHAS3sahck R"}, "archive: a position search needs the game; expected a game id with the position"},
		{Filter{Game: "ziggurat43", Position: "3/7/SSS3sss/CCAS3sacc/KCHAS3sahck X"}, `archive: ziggurat43 position, column 35: no side "X"; want R or G`},
		{Filter{Game: "castles", Position: "3/7/SSS3sss/CCAS3sacc/KCHAS3sahck R"}, "archive: castles position, column 36: the text ends after 2 fields, without the Second's heap/supply/points; want 4 fields separated by blanks: cells, First's heap/supply/points, Second's heap/supply/points, side to move"},
	} {
		f := tc.f
		err := f.Check(lookup)
		if assert.Error(t, err) {
			assert.Equal(t, tc.want, err.Error())
		}
	}
	_, err := AfterPlies(lookup, "ziggurat43", engine.Options{}, "Se3-e4 Se4-e5")
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), `archive: ply 2 "Se4-e5": `)
	}
}

// BenchmarkSearchPosition measures `pbem archive search --position` (the
// first page of 50 games, newest first, with the count of them all up to
// PositionCountLimit: Store.SearchPosition) and `pbem archive explore`
// (Store.Explore) in archives of the benchmark corpora (benchSizes; the
// stores are built once under the temporary directory, see benchStore):
// "random" searches (or explores) the positions after random plies of
// random archived games (mostly one game each; an early ply finds
// hundreds or thousands), "start" the start of ziggurat43 (a fifth of the
// games). Each reports the median and the 99th percentile of one search;
// docs/PERFORMANCE.md has the figures.
func BenchmarkSearchPosition(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("games=%d", n), func(b *testing.B) { benchSearchPosition(b, n) })
	}
}

// benchSearchPosition is BenchmarkSearchPosition in an archive of the
// benchmark corpus of n games.
func benchSearchPosition(b *testing.B, n int) {
	ctx := context.Background()
	s := benchStore(b, n)
	defer s.Close()
	// Positions of random archived games at random plies.
	r := rand.New(rand.NewPCG(44, 44))
	type probe struct{ game, text string }
	var random []probe
	for len(random) < 200 {
		es, err := s.Entries(ctx, int64(r.IntN(n)), 1)
		if err != nil || len(es) != 1 {
			b.Fatalf("entries: %v", err)
		}
		recs, _ := notation.Parse("e", []byte(es[0].Record))
		g, problems := notation.Check(recs[0], lookup)
		if len(problems) > 0 {
			b.Fatal(problems[0])
		}
		text, _, _ := engine.Position(g.Lines[r.IntN(len(g.Lines))].State())
		random = append(random, probe{es[0].Game, text})
	}
	start, err := AfterPlies(lookup, "ziggurat43", engine.Options{}, "")
	if err != nil {
		b.Fatal(err)
	}
	search := func(p probe) (int, error) {
		page, err := s.SearchPosition(ctx, lookup, Filter{Game: p.game, Position: p.text}, nil, 50, 0)
		if err != nil {
			return 0, err
		}
		return page.Total, nil
	}
	explore := func(p probe) (int, error) {
		played, err := s.Explore(ctx, lookup, Filter{Game: p.game, Position: p.text})
		n := 0
		for _, x := range played {
			n += x.Games
		}
		if n == 0 {
			n = 1 // the last ply of a game: nothing played on
		}
		return n, err
	}
	for _, tc := range []struct {
		name   string
		probes []probe
		run    func(probe) (int, error)
	}{{"search/random", random, search}, {"search/start", []probe{{"ziggurat43", start}}, search},
		{"explore/random", random, explore}, {"explore/start", []probe{{"ziggurat43", start}}, explore}} {
		b.Run(tc.name, func(b *testing.B) {
			var times []time.Duration
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				p := tc.probes[i%len(tc.probes)]
				i++
				t0 := time.Now()
				found, err := tc.run(p)
				times = append(times, time.Since(t0))
				if err != nil || found == 0 {
					b.Fatalf("%s %q: %d found, %v", tc.name, p.text, found, err)
				}
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}

// TestSearchPositionPages: paging through a position search finds exactly
// the games a direct count over the records finds (transpositions
// included), newest first, with the plies at which they stand there;
// with words or a keep function too; the count says "more" past its bound.
func TestSearchPositionPages(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		importText(t, s, transpositions)
		importText(t, s, string(corpus(t, 12, 12)))
		// Direct count: every position of every archived game's main line.
		type hit struct {
			id    int64
			plies []int
			round string
		}
		direct := map[string][]hit{} // game + position text -> games, by id
		require.NoError(t, s.Query(ctx, lookup, Filter{}, func(fd *Found) error {
			recs, _ := notation.Parse("a", []byte(fd.Record))
			g, problems := notation.Check(recs[0], lookup)
			require.Empty(t, problems)
			round, _ := tagValue(fd.Tags, "Round")
			for i, l := range g.Lines {
				text, _, ok := engine.Position(l.State())
				require.True(t, ok)
				k := fd.Game + "\n" + text
				hs := direct[k]
				if n := len(hs); n > 0 && hs[n-1].id == fd.ID {
					hs[n-1].plies = append(hs[n-1].plies, i)
				} else {
					hs = append(hs, hit{fd.ID, []int{i}, round})
				}
				direct[k] = hs
			}
			return nil
		}))
		pageThrough := func(game, text string, f Filter, keep func(*Found) bool, limit int) (got []hit, total int) {
			f.Game, f.Position = game, text
			for offset := 0; ; offset += limit {
				page, err := s.SearchPosition(ctx, lookup, f, keep, limit, offset)
				require.NoError(t, err)
				require.False(t, page.More)
				total = page.Total
				for _, fd := range page.Games {
					assert.Empty(t, fd.Record, "the record is not read")
					require.NotEmpty(t, fd.Sides)
					round, _ := tagValue(fd.Tags, "Round")
					got = append(got, hit{fd.ID, fd.Plies, round})
				}
				if len(page.Games) < limit {
					return got, total
				}
			}
		}
		reversed := func(hs []hit) []hit {
			out := slices.Clone(hs)
			slices.Reverse(out)
			return out
		}
		after, err := AfterPlies(lookup, "ziggurat43", engine.Options{}, "Se3-e4 Si3-h4 Sd3-d4")
		require.NoError(t, err)
		start, err := AfterPlies(lookup, "ziggurat43", engine.Options{}, "")
		require.NoError(t, err)
		probes := [][2]string{{"ziggurat43", after}, {"ziggurat43", start}}
		r := rand.New(rand.NewPCG(4, 4))
		keys := slices.Sorted(maps.Keys(direct))
		for range 10 {
			k := keys[r.IntN(len(keys))]
			game, text, _ := strings.Cut(k, "\n")
			probes = append(probes, [2]string{game, text})
		}
		for _, p := range probes {
			want := reversed(direct[p[0]+"\n"+p[1]])
			require.NotEmpty(t, want)
			for _, limit := range []int{1, 3, 1000} {
				got, total := pageThrough(p[0], p[1], Filter{}, nil, limit)
				assert.Equal(t, want, got, "%s %s by %d", p[0], p[1], limit)
				assert.Equal(t, len(want), total)
			}
			// Words and keep are compared game by game.
			var even []hit
			for _, h := range want {
				if h.id%2 == 0 {
					even = append(even, h)
				}
			}
			got, total := pageThrough(p[0], p[1], Filter{}, func(fd *Found) bool { return fd.ID%2 == 0 }, 2)
			assert.Equal(t, even, got)
			assert.Equal(t, len(even), total)
		}
		// Transpositions: the position after ply 3 of rounds 1, 2 and 5,
		// the start of 4; round 3 is not through it.
		got, _ := pageThrough("ziggurat43", after, Filter{Text: []string{"5"}}, nil, 2)
		require.Len(t, got, 1)
		assert.Equal(t, hit{5, []int{3}, "5"}, got[0])
		var rounds []string
		for _, h := range direct["ziggurat43\n"+after] {
			rounds = append(rounds, h.round)
		}
		assert.Equal(t, []string{"1", "2", "4", "5"}, rounds)

		// Past the count's bound, the count says "more".
		defer func(n int) { positionCountLimit = n }(positionCountLimit)
		positionCountLimit = 5
		want := reversed(direct["ziggurat43\n"+start])
		require.Greater(t, len(want), 6)
		for _, keep := range []func(*Found) bool{nil, func(*Found) bool { return true }} {
			page, err := s.SearchPosition(ctx, lookup, Filter{Game: "ziggurat43", Position: start}, keep, 2, 0)
			require.NoError(t, err)
			assert.Equal(t, 5, page.Total)
			assert.True(t, page.More)
			page, err = s.SearchPosition(ctx, lookup, Filter{Game: "ziggurat43", Position: start}, keep, 2, 5)
			require.NoError(t, err)
			assert.Equal(t, 7, page.Total, "the count goes as far as the page")
			assert.Equal(t, want[5].id, page.Games[0].ID)
		}
		_, err = s.SearchPosition(ctx, lookup, Filter{Game: "ziggurat43", Position: start}, nil, 0, 0)
		assert.EqualError(t, err, "archive: a position search needs a limit above 0 and an offset from 0, not 0 and 0")
	})
}
