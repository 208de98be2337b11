package archive

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/notation"
)

// clubCup is a small hand-made event (games 1-8 and 10), with a game of
// another event (9). Alice is written with and without her name.
const clubCup = `[Game "castles"] [Event "Club Cup"] [Date "2026.03.01"] [Round "1"]
[First "Alice <alice@example.org>"] [Second "Bob <bob@example.org>"] [Termination "resign"]
0... @c3 1. Ca1-b2 1-0

[Game "castles"] [Event "Club Cup"] [Date "2026.03.01"] [Round "1"]
[First "Carol"] [Second "Dan <dan@example.org>"] [Termination "resign"]
0... @c3 1. Ca1-b2 1-0

[Game "castles"] [Event "Club Cup"] [Date "2026.03.08"] [Round "2"]
[First "alice@example.org"] [Second "Carol"] [Termination "resign"]
0... @c3 1. Ca1-b2 1-0

[Game "castles"] [Event "Club Cup"] [Date "2026.03.08"] [Round "2"]
[First "Bob <bob@example.org>"] [Second "Dan <dan@example.org>"] [Termination "resign"]
0... @c3 1. Ca1-b2 1-0

[Game "castles"] [Event "Club Cup"] [Date "2026.03.15"] [Round "3"]
[First "Dan <dan@example.org>"] [Second "Alice <alice@example.org>"] [Termination "agreement"]
0... @c3 1. Ca1-b2 1/2-1/2

[Game "castles"] [Event "CLUB CUP"] [Date "2026.03.15"] [Round "3"]
[First "Bob <bob@example.org>"] [Second "Carol"] [Termination "resign"]
0... @c3 1. Ca1-b2 1-0

[Game "rpp"] [Event "Club Cup"] [Date "2026.03.22"] [Round "4"] [Players "4"]
[R "Alice <alice@example.org>"] [Y "Bob <bob@example.org>"] [G "Carol"] [B "Dan <dan@example.org>"]
[Termination "time"]
1. R:Le1-f2 R>G=B>Y

[Game "castles"] [Event "Club Cup"] [Date "2026.??.??"] [Round "5"]
[First "Alice <alice@example.org>"] [Second "Bob <bob@example.org>"]
0... @c3 1. Ca1-b2 *

[Game "castles"] [Event "Other"] [Date "2026.04.01"] [Round "1"]
[First "Alice <alice@example.org>"] [Second "Bob <bob@example.org>"] [Termination "resign"]
0... @c3 1. Ca1-b2 0-1

[Game "castles"] [Event "Club Cup"] [Round "6"]
[First "Alice <alice@example.org>"] [Second "?"] [Termination "resign"]
0... @c3 1. Ca1-b2 1-0
`

func importText(t *testing.T, s *Store, text string) {
	t.Helper()
	st, err := s.ImportFile(context.Background(), "t.pgn", []byte(text), lookup, func(ch *notation.Checked) {
		for _, p := range ch.Problems {
			t.Error(p)
		}
	})
	require.NoError(t, err)
	require.Zero(t, st.Invalid)
}

func ids(t *testing.T, s *Store, f Filter) []int64 {
	t.Helper()
	var got []int64
	require.NoError(t, s.Query(context.Background(), lookup, f, func(fd *Found) error {
		got = append(got, fd.ID)
		return nil
	}))
	return got
}

func TestQueryFilters(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		s := open(t, where)
		importText(t, s, clubCup)
		for _, c := range []struct {
			name string
			f    Filter
			want []int64
		}{
			{"all", Filter{}, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
			{"event, any case", Filter{Event: "club cup"}, []int64{1, 2, 3, 4, 5, 6, 7, 8, 10}},
			{"event is not a substring", Filter{Event: "Club"}, nil},
			{"game", Filter{Game: "RPP"}, []int64{7}},
			{"player", Filter{Player: "ALICE"}, []int64{1, 3, 5, 7, 8, 9, 10}},
			{"player substring of an address", Filter{Player: "dan@"}, []int64{2, 4, 5, 7}},
			{"player and game", Filter{Player: "carol", Game: "castles"}, []int64{2, 3, 6}},
			{"since", Filter{Since: "2026.03.08"}, []int64{3, 4, 5, 6, 7, 9}},
			{"since counts unknown parts from their earliest day", Filter{Since: "2026.01.01"}, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9}},
			{"text", Filter{Text: []string{"DAN@", "time"}}, []int64{7}},
			{"everything", Filter{Game: "castles", Event: "Club Cup", Player: "bob", Since: "2026.03.08", Text: []string{"3"}}, []int64{4, 6}},
		} {
			t.Run(c.name, func(t *testing.T) {
				assert.Equal(t, c.want, ids(t, s, c.f))
			})
		}

		var fd7 *Found
		require.NoError(t, s.Query(context.Background(), lookup, Filter{Game: "rpp"}, func(fd *Found) error {
			fd7 = fd
			return nil
		}))
		assert.Equal(t, "Club Cup", fd7.Event)
		assert.Equal(t, "2026.03.22", fd7.Date)
		assert.Equal(t, "4", fd7.Round)
		assert.Equal(t, "R>G=B>Y", fd7.Result)
		assert.Equal(t, []Side{{"R", "Alice <alice@example.org>", 1}, {"Y", "Bob <bob@example.org>", 4},
			{"G", "Carol", 2}, {"B", "Dan <dan@example.org>", 2}}, fd7.Sides)

		err := s.Query(context.Background(), lookup, Filter{Game: "chess"}, nil)
		assert.ErrorContains(t, err, `unknown game "chess"`)
		err = s.Query(context.Background(), lookup, Filter{Since: "2026-03-01"}, nil)
		assert.ErrorContains(t, err, `bad date "2026-03-01"; expected YYYY.MM.DD`)
	})
}

func TestQueryPages(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		s := open(t, where)
		data := corpus(t, queryPage/5+7, 4) // more than a page
		_, err := s.ImportFile(context.Background(), "c", data, lookup, nil)
		require.NoError(t, err)
		got := ids(t, s, Filter{})
		require.Len(t, got, 5*(queryPage/5+7))
		for i, id := range got {
			require.Equal(t, int64(i+1), id)
		}
		got = ids(t, s, Filter{Game: "ziggurat", Player: "player 3"})
		// Player 3 sits in seat 0 of games i%7 == 3 and seat 1 of i%7 == 2,
		// 15 games each for i < 107.
		assert.Len(t, got, 30)
	})
}

// TestRefereeEntriesAreIndexed: entries the referee commits (which cannot
// index them) are indexed by the next query.
func TestRefereeEntriesAreIndexed(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		var e *Entry
		notation.CheckFile("x", []byte(clubCup), lookup, func(ch *notation.Checked) {
			if ch.Index == 7 {
				e = EntryOf(ch.Game, t0)
			}
		})
		e.GameID, e.Rated = 42, false
		require.NoError(t, s.Commit(ctx, &Change{MessageID: "m", Entries: []*Entry{e}}))
		var n int
		require.NoError(t, s.DB().QueryRow(`SELECT COUNT(*) FROM archive_unindexed`).Scan(&n))
		assert.Equal(t, 1, n)

		var found []*Found
		require.NoError(t, s.Query(ctx, lookup, Filter{Player: "carol"}, func(fd *Found) error {
			found = append(found, fd)
			return nil
		}))
		require.Len(t, found, 1)
		assert.Equal(t, int64(42), found[0].GameID)
		assert.False(t, found[0].Rated)
		assert.Equal(t, "Club Cup", found[0].Event)
		assert.Len(t, found[0].Sides, 4)
		require.NoError(t, s.DB().QueryRow(`SELECT COUNT(*) FROM archive_unindexed`).Scan(&n))
		assert.Zero(t, n)

		// An entry of a game the catalog does not know is indexed without
		// sides.
		require.NoError(t, s.Commit(ctx, &Change{Entries: []*Entry{{Game: "chess", Result: "1-0",
			Tags: []Tag{{"Game", "chess"}, {"Event", "Club Cup"}, {"White", "Alice"}}, Record: "chess"}}}))
		found = nil
		require.NoError(t, s.Query(ctx, lookup, Filter{Event: "club cup"}, func(fd *Found) error {
			found = append(found, fd)
			return nil
		}))
		require.Len(t, found, 2)
		assert.Equal(t, "chess", found[1].Game)
		assert.Nil(t, found[1].Sides)
	})
}

// TestMigrationIndexesOldEntries: games archived before the index existed
// are indexed after the migration.
func TestMigrationIndexesOldEntries(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := bareStore(t, where)
		require.NoError(t, s.migrateTo(ctx, migrations[:1]))
		var e *Entry
		notation.CheckFile("x", []byte(clubCup), lookup, func(ch *notation.Checked) {
			if ch.Index == 1 {
				e = EntryOf(ch.Game, t0)
			}
		})
		require.NoError(t, s.Commit(ctx, &Change{Entries: []*Entry{e}}))
		require.NoError(t, s.migrateTo(ctx, migrations))
		assert.Equal(t, []int64{1}, ids(t, s, Filter{Player: "bob", Event: "Club Cup", Since: "2026.03.01"}))
	})
}

func TestDay(t *testing.T) {
	for date, want := range map[string]string{
		"2026.11.21": "2026.11.21",
		"2026.11.??": "2026.11.01",
		"2026.??.??": "2026.01.01",
		"2026.??.05": "2026.01.05",
		"????.11.21": "",
		"????.??.??": "",
		"":           "",
		"2026-11-21": "",
	} {
		assert.Equal(t, want, day(date), date)
	}
}

func TestPlayerKeyAndName(t *testing.T) {
	for _, c := range []struct{ v, key, name string }{
		{"Alice <Alice@Example.org>", "alice@example.org", "Alice"},
		{"alice@example.org", "alice@example.org", "alice@example.org"},
		{"<alice@example.org>", "alice@example.org", "alice@example.org"},
		{`"Smith, Alice" <alice@example.org>`, "alice@example.org", "Smith, Alice"},
		{"  Jürgen   Müller ", "jürgen müller", "Jürgen Müller"},
		{"?", "", "?"},
		{"", "", ""},
	} {
		assert.Equal(t, c.key, playerKey(c.v), c.v)
		assert.Equal(t, c.name, displayName(c.v), c.v)
	}
}
