package archive

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSearchRepeatedWordsOnce searches a word given 3,000 times (and in
// two cases) as the word once: the full-text query has one phrase, and the
// games found are those of the word alone.
func TestSearchRepeatedWordsOnce(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		_, err := s.ImportFile(ctx, "corpus", corpus(t, 6, 4), lookup, nil)
		require.NoError(t, err)
		words := []string{"CASTLES"}
		for range 3000 {
			words = append(words, "castles")
		}
		f := Filter{Text: words}
		require.NoError(t, f.Check(lookup))
		assert.Equal(t, []string{"CASTLES"}, f.Text, "the words searched")
		assert.Equal(t, []matchTerm{{"tags", "castles"}}, f.match(), "the full-text terms")
		cond, args := s.matchSQL(f.match())
		if s.Backend() == SQLite {
			assert.Equal(t, []any{`{tags} : "castles"`}, args, "the full-text query")
		} else {
			assert.Equal(t, "f.tags LIKE ?", strings.Fields(cond)[0]+" "+strings.Fields(cond)[1]+" "+strings.Fields(cond)[2])
			assert.Equal(t, []any{"%castles%"}, args, "the LIKE pattern")
		}

		ids := func(f Filter) []int64 {
			var got []int64
			require.NoError(t, s.Query(ctx, lookup, f, func(fd *Found) error { got = append(got, fd.ID); return nil }))
			return got
		}
		want := ids(Filter{Text: []string{"castles"}})
		assert.NotEmpty(t, want)
		assert.Equal(t, want, ids(Filter{Text: words}))
	})
}

// TestSearchWordsBounded refuses more than MaxSearchWords different words
// and words longer than MaxSearchWordLen, saying what was expected.
func TestSearchWordsBounded(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		s := open(t, where)
		var words []string
		for i := range MaxSearchWords + 1 {
			words = append(words, fmt.Sprintf("word%d", i))
		}
		err := s.Query(context.Background(), lookup, Filter{Text: words}, func(*Found) error { return nil })
		require.Error(t, err)
		assert.Equal(t, "archive: search of 9 different words; expected at most 8", err.Error())

		f := Filter{Text: words[:MaxSearchWords]}
		require.NoError(t, f.Check(lookup))
		assert.Len(t, f.Text, MaxSearchWords)

		f = Filter{Text: []string{strings.Repeat("é", MaxSearchWordLen+1)}}
		err = f.Check(lookup)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "has 65 characters; expected at most 64")
		f = Filter{Text: []string{strings.Repeat("é", MaxSearchWordLen)}}
		assert.NoError(t, f.Check(lookup))
	})
}

// TestStampChangesWithEveryWrite: the stamp moves when a game is archived,
// a game is created or changed, a tournament is created or changed; and
// stays while nothing is written.
func TestStampChangesWithEveryWrite(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		last, err := s.Stamp(ctx)
		require.NoError(t, err)
		moved := func(what string) {
			t.Helper()
			st, err := s.Stamp(ctx)
			require.NoError(t, err)
			assert.NotEqual(t, last, st, "the stamp after %s", what)
			again, err := s.Stamp(ctx)
			require.NoError(t, err)
			assert.Equal(t, st, again, "the stamp with no write after %s", what)
			last = st
		}
		_, err = s.ImportFile(ctx, "corpus", corpus(t, 1, 4), lookup, nil)
		require.NoError(t, err)
		moved("an import")

		g := newGame(t, s)
		require.NoError(t, s.Commit(ctx, &Change{At: t0, Games: []*Game{g}}))
		moved("a new game")
		g.Status = Playing
		require.NoError(t, s.Commit(ctx, &Change{At: t0, Games: []*Game{g}}))
		moved("a game's change at the same instant")

		tr := newTournament(t, s)
		require.NoError(t, s.Commit(ctx, &Change{At: t0, Tournaments: []*Tournament{tr}}))
		moved("a new tournament")
		tr.Players[1].Joined = true
		require.NoError(t, s.Commit(ctx, &Change{At: t0, Tournaments: []*Tournament{tr}}))
		moved("a tournament's change")
	})
}

// BenchmarkSearchRepeatedWord searches, in an archive of 20,000 short
// games, a query of one word written 3,000 times (an 18 kB address of the
// archive page).
func BenchmarkSearchRepeatedWord(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(os.TempDir(), "pbem-archive-bench-20000-short.pgn")
	if _, err := os.Stat(path); err != nil {
		require.NoError(b, os.WriteFile(path, corpus(b, 4000, 6), 0o644))
	}
	s, err := Open(ctx, b.TempDir(), nil)
	require.NoError(b, err)
	defer s.Close()
	f, err := os.Open(path)
	require.NoError(b, err)
	defer f.Close()
	_, err = s.ImportReader(ctx, "corpus", f, lookup, nil)
	require.NoError(b, err)
	words := strings.Fields(strings.Repeat("player ", 3000))
	b.ReportAllocs()
	for b.Loop() {
		found := 0
		err := s.Query(ctx, lookup, Filter{Text: words}, func(*Found) error { found++; return nil })
		if err != nil || found != 20_000 {
			b.Fatalf("search: %d found, %v", found, err)
		}
	}
}

// BenchmarkStamp reads the stamp of a store of 20,000 games, as every
// request for a kept page does.
func BenchmarkStamp(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, b.TempDir(), &Options{Now: func() time.Time { return t0 }})
	require.NoError(b, err)
	defer s.Close()
	for batch := 0; batch < 20; batch++ {
		ch := &Change{At: t0}
		for range 1000 {
			id, err := s.NewGameID(ctx)
			require.NoError(b, err)
			ch.Games = append(ch.Games, &Game{
				ID: id, Game: "toy", Status: Playing, Options: GameOptions{Days: 7},
				Seats: []Seat{
					{Side: "A", Player: Address{Name: "", Addr: "alice@example.org"}, Token: "aaaa", Joined: true},
					{Side: "B", Player: Address{Name: "", Addr: "bob@example.org"}, Token: "bbbb", Joined: true},
				},
				Deadline: t0.Add(time.Hour), Due: t0.Add(time.Hour), Thread: "thread@x",
			})
		}
		require.NoError(b, s.Commit(ctx, ch))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Stamp(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
