package archive

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutboxKeepsHTML: a mail's HTML part and its images come back from
// the outbox as they were queued, so that a retry sends the same bytes; a
// text-only mail comes back without them.
func TestOutboxKeepsHTML(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		a, b := mail("a", "x@x"), mail("b", "y@y")
		a.HTML = "<p>Ply 3</p><img src=\"cid:board.a\">"
		a.Inline = []Inline{{ContentID: "board.a", ContentType: "image/png", Filename: "board.png", Data: []byte{0x89, 'P', 'N', 'G', 0, 1, 2}}}
		require.NoError(t, s.Commit(ctx, &Change{MessageID: "m", Outbox: []*Outgoing{a, b}}))
		due, err := s.Due(ctx, t0, 10)
		require.NoError(t, err)
		require.Len(t, due, 2)
		for _, o := range due {
			switch o.MessageID {
			case a.MessageID:
				assert.Equal(t, a.HTML, o.HTML)
				assert.Equal(t, a.Inline, o.Inline)
			default:
				assert.Empty(t, o.HTML)
				assert.Nil(t, o.Inline)
			}
		}
	})
}
