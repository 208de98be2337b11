package archive

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNotes: notes are stored with the change that writes them, read back
// per owner and game in the order written, and a change that fails stores
// none of its notes.
func TestNotes(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		g := newGame(t, s)
		require.NoError(t, s.Commit(ctx, &Change{MessageID: "m1@x", Games: []*Game{g}, Notes: []*Note{
			{GameID: g.ID, Addr: "Alice@Example.org", Text: "first"},
			{GameID: g.ID, Addr: "bob@example.org", Text: "bob's"},
		}}))
		require.NoError(t, s.Commit(ctx, &Change{MessageID: "m2@x", Notes: []*Note{
			{GameID: g.ID, Addr: "alice@example.org", Ply: 3, Text: "second\nof two lines"},
		}}))
		texts := func(addr string) []string {
			ns, err := s.Notes(ctx, g.ID, addr)
			require.NoError(t, err)
			var out []string
			for _, n := range ns {
				assert.Equal(t, t0, n.At)
				out = append(out, n.Text)
			}
			return out
		}
		assert.Equal(t, []string{"first", "second\nof two lines"}, texts("ALICE@example.org"))
		assert.Equal(t, []string{"bob's"}, texts("bob@example.org"))
		assert.Empty(t, texts("carol@example.org"))
		ns, err := s.Notes(ctx, g.ID, "alice@example.org")
		require.NoError(t, err)
		assert.Equal(t, []int{0, 3}, []int{ns[0].Ply, ns[1].Ply})

		// A duplicate request stores nothing, its note neither.
		err = s.Commit(ctx, &Change{MessageID: "m2@x", Notes: []*Note{{GameID: g.ID, Addr: "alice@example.org", Text: "again"}}})
		require.ErrorIs(t, err, ErrDuplicate)
		assert.Len(t, texts("alice@example.org"), 2)
	})
}
