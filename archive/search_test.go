package archive

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSearchByIndex finds by the trigram index exactly the games a scan of
// every game finds, for words of every length, any case, quotes and
// players; and the query plan reads the index.
func TestSearchByIndex(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		_, err := s.ImportFile(ctx, "corpus", corpus(t, 30, 10), lookup, nil)
		require.NoError(t, err)
		_, err = s.ImportFile(ctx, "f", []byte(`[Game "castles"] [Event "Ünïcode \"Cup\""] [First "Zoë <zoe@example.org>"] 0... @c3 *`), lookup, nil)
		require.NoError(t, err)
		var all []*Found
		require.NoError(t, s.Query(ctx, lookup, Filter{}, func(fd *Found) error { all = append(all, fd); return nil }))
		hits := 0
		for _, f := range []Filter{
			{Text: []string{"corpus"}},
			{Text: []string{"CASTLES", "player 3"}},
			{Text: []string{"p1"}},
			{Text: []string{"x"}},
			{Text: []string{"ünïcode", `"cup"`}},
			{Text: []string{"nothing like it"}},
			{Player: "p2@exa"},
			{Player: "zoë", Text: []string{"cup"}},
			{Player: "Player 4", Game: "rpp", Text: []string{"2026"}},
		} {
			t.Run(strings.Join(f.Text, "+")+"/"+f.Player, func(t *testing.T) {
				var want []int64
				for _, fd := range all {
					if f.Game != "" && !strings.EqualFold(fd.Game, f.Game) || !matchText(fd, lower(f.Text)) {
						continue
					}
					if f.Player != "" {
						hit := false
						for _, sd := range fd.Sides {
							hit = hit || strings.Contains(strings.ToLower(sd.Player), strings.ToLower(f.Player))
						}
						if !hit {
							continue
						}
					}
					want = append(want, fd.ID)
				}
				var got []int64
				require.NoError(t, s.Query(ctx, lookup, f, func(fd *Found) error { got = append(got, fd.ID); return nil }))
				assert.Equal(t, want, got)
				hits += len(got)
			})
		}
		assert.Greater(t, hits, 150, "the filters find games")
		if s.Backend() == Postgres {
			assertPostgresPlanUsesIndex(t, s)
			return
		}
		f := Filter{Text: []string{"corpus"}}
		cond, args := s.matchSQL(f.match())
		rows, err := s.DB().Query(`EXPLAIN QUERY PLAN SELECT a.id FROM archive_search f JOIN archive a ON a.id = f.rowid
JOIN archive_index i ON i.entry_id = a.id WHERE `+cond+` AND f.rowid > 0 ORDER BY f.rowid LIMIT 500`, args...)
		require.NoError(t, err)
		defer rows.Close()
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			require.NoError(t, rows.Scan(&id, &parent, &unused, &detail))
			plan = append(plan, detail)
		}
		assert.Contains(t, strings.Join(plan, "\n"), "VIRTUAL TABLE INDEX", "plan: %v", plan)
		assert.NotContains(t, strings.Join(plan, "\n"), "SCAN a", "plan: %v", plan)
	})
}

// assertPostgresPlanUsesIndex checks that PostgreSQL can answer a search
// by the trigram indexes of archive_search (pg_trgm, which Debian's
// postgresql package has): with sequential scans discouraged, as a large
// table would have the planner do, the plan of its conditions reads them.
func assertPostgresPlanUsesIndex(t *testing.T, s *Store) {
	ctx := context.Background()
	conn, err := s.DB().Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.ExecContext(ctx, `SET enable_seqscan = off`)
	require.NoError(t, err)
	defer conn.ExecContext(ctx, `RESET enable_seqscan`)
	for _, c := range []struct {
		f     Filter
		index string
	}{
		{Filter{Text: []string{"corpus"}}, "archive_search_tags"},
		{Filter{Player: "player 3"}, "archive_search_players"},
	} {
		cond, args := s.matchSQL(c.f.match())
		rows, err := conn.QueryContext(ctx, `EXPLAIN SELECT f.rowid FROM archive_search f WHERE `+cond, args...)
		require.NoError(t, err)
		var plan []string
		for rows.Next() {
			var line string
			require.NoError(t, rows.Scan(&line))
			plan = append(plan, line)
		}
		require.NoError(t, rows.Err())
		rows.Close()
		assert.Contains(t, strings.Join(plan, "\n"), c.index, "plan: %v", plan)
	}
}

func lower(words []string) []string {
	var out []string
	for _, w := range words {
		out = append(out, strings.ToLower(w))
	}
	return out
}
