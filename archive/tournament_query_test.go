package archive

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTournamentsNamed: tournaments are found by name in any case, every
// one of a name in the order created, none for another name.
func TestTournamentsNamed(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		var ids []int64
		for _, name := range []string{"Autumn Cup", "Été Open", "autumn cup", "Autumn Cup 2"} {
			tr := newTournament(t, s)
			tr.Name = name
			require.NoError(t, s.Commit(ctx, &Change{At: t0, Tournaments: []*Tournament{tr}}))
			ids = append(ids, tr.ID)
		}
		for _, tc := range []struct {
			event string
			want  []int64
		}{
			{"Autumn Cup", []int64{ids[0], ids[2]}},
			{"AUTUMN CUP", []int64{ids[0], ids[2]}},
			{"été open", []int64{ids[1]}},
			{"Autumn", nil},
			{"", nil},
		} {
			t.Run(tc.event, func(t *testing.T) {
				ts, err := s.TournamentsNamed(ctx, tc.event)
				require.NoError(t, err)
				var got []int64
				for _, tr := range ts {
					got = append(got, tr.ID)
					assert.Len(t, tr.Players, 3, "the tournament comes with its players")
				}
				assert.Equal(t, tc.want, got)
			})
		}
	})
}
