package mail_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/mail"
)

// batchStore is the test outbox with SentBatch: it records the size of each
// batch it was given.
type batchStore struct {
	*store
	bmu     sync.Mutex
	batches []int
}

func (b *batchStore) SentBatch(ctx context.Context, ids []string) error {
	b.bmu.Lock()
	b.batches = append(b.batches, len(ids))
	b.bmu.Unlock()
	for _, id := range ids {
		if err := b.store.Sent(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// TestSenderConnections: several connections deliver a batch; the replies
// to one recipient arrive in the outbox's order, a reply to two recipients
// included, and each is sent once and recorded as sent.
func TestSenderConnections(t *testing.T) {
	for _, log := range []bool{false, true} {
		t.Run(fmt.Sprintf("accepted log %v", log), func(t *testing.T) {
			s := startServers(t, nil)
			st := &batchStore{store: newStore()}
			players := []string{"alice", "bob", "carol"}
			var ids []string
			for i := range 12 {
				p := players[i%3]
				ids = append(ids, st.queue(p+"@pbem.local", fmt.Sprintf("%s %d", p, i)))
			}
			// One reply to alice and bob, then more to each.
			st.mu.Lock()
			st.outbox[len(st.outbox)-1].o.Cc = []mail.Address{{Addr: "alice@pbem.local"}}
			st.mu.Unlock()
			for i := 12; i < 18; i++ {
				p := players[i%3]
				ids = append(ids, st.queue(p+"@pbem.local", fmt.Sprintf("%s %d", p, i)))
			}
			var amu sync.Mutex
			accepted := map[string]int{}
			opts := &mail.SenderOptions{Connections: 3, BatchSize: 7, Accepted: func(id string) {
				amu.Lock()
				accepted[id]++
				amu.Unlock()
			}}
			if log {
				opts.AcceptedLog = filepath.Join(t.TempDir(), "accepted.log")
			}
			_, err := newSender(t, s, st, opts).SendDue(context.Background())
			require.NoError(t, err)
			for _, id := range ids {
				assert.True(t, st.isSent(id), "reply %s recorded as sent", id)
				assert.Equal(t, 1, accepted[id], "reply %s reported accepted once", id)
			}
			want := map[string][]string{}
			for i := range 18 {
				p := players[i%3]
				want[p] = append(want[p], fmt.Sprintf("%s %d", p, i))
				if i == 11 {
					want["alice"] = append(want["alice"], "carol 11")
				}
			}
			for _, p := range players {
				pw, _ := s.Password(p)
				var got []string
				for _, raw := range fetchAll(t, s.IMAPAddr(), p+"@pbem.local", pw, "INBOX") {
					in, err := mail.Parse(raw)
					require.NoError(t, err)
					got = append(got, in.Text)
				}
				for i := range got {
					got[i] = trimText(got[i])
				}
				assert.Equal(t, want[p], got, "%s's mail, in order", p)
			}
		})
	}
}

// trimText is the first line of a mail's text.
func trimText(s string) string {
	for i, c := range s {
		if c == '\r' || c == '\n' {
			return s[:i]
		}
	}
	return s
}
