package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"pbem/archive"
	"pbem/engine"
	"pbem/mail"
	"pbem/referee"
)

// TestMailSizes plays 30 random plies of a game of each kind and board by
// mail, the largest (rpp's octagon of 8 seats) included, composes every
// mail the referee sends as it goes out, and keeps the largest of each
// game well under the 102 KB at which Gmail clips a mail.
func TestMailSizes(t *testing.T) {
	games := []struct {
		name, args string
		opts       engine.Options
	}{
		{"castles", "", engine.Options{}},
		{"elevation", "", engine.Options{}},
		{"ziggurat", "", engine.Options{}},
		{"ziggurat43", "", engine.Options{}},
		{"rpp", "players=4 board=square7", engine.Options{Players: 4, Board: "square7"}},
		{"rpp", "players=8 board=octagon", engine.Options{Players: 8, Board: "octagon"}},
	}
	for _, gm := range games {
		t.Run(gm.name+" "+gm.args, func(t *testing.T) {
			ctx := context.Background()
			store, err := archive.Open(ctx, t.TempDir(), nil)
			require.NoError(t, err)
			defer store.Close()
			clock := &fixedClock{time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}
			ref, err := referee.New(store, &referee.Options{Address: "referee@pbem.example", Clock: clock})
			require.NoError(t, err)
			n, seen, largest, largestAt := 0, 0, 0, ""
			var mails []archive.Outgoing
			send := func(from, subject, body string) {
				t.Helper()
				n++
				clock.t = clock.t.Add(time.Minute)
				require.NoError(t, ref.Handle(ctx, referee.Request{From: referee.Address{Addr: from}, To: "referee@pbem.example", Subject: subject,
					Body: body, MessageID: fmt.Sprintf("m%d@example.org", n), Received: clock.t}))
				for id := seen + 1; ; id++ {
					o, err := store.Outgoing(ctx, fmt.Sprint(id))
					if err != nil {
						break
					}
					mails, seen = append(mails, o), id
					m := outgoing(&o)
					if size := len(mail.ComposeDrawing(&m, drawPicture)); size > largest {
						largest, largestAt = size, o.Subject
					}
				}
			}
			reply := func(from, body string) {
				t.Helper()
				for i := len(mails) - 1; i >= 0; i-- {
					if mails[i].To[0].Addr == from && strings.HasPrefix(mails[i].Subject, "[pbem #1 ") {
						send(from, "Re: "+mails[i].Subject, body)
						return
					}
				}
				t.Fatalf("no mail of game #1 to %s", from)
			}
			seats := max(2, gm.opts.Players)
			players := []string{"p0@example.org"}
			for i := 1; i < seats; i++ {
				players = append(players, fmt.Sprintf("p%d@example.org", i))
			}
			send(players[0], "", fmt.Sprintf("new %s with %s %s first=%s", gm.name, strings.Join(players[1:], " "), gm.args, players[0]))
			reply(players[0], "accept")
			for _, p := range players[1:] {
				reply(p, "accept")
			}
			codec, err := referee.Lookup(gm.name)
			require.NoError(t, err)
			g, err := store.Game(ctx, 1)
			require.NoError(t, err)
			require.Equal(t, archive.Playing, g.Status)
			st, err := codec.Rules().Start(gm.opts)
			require.NoError(t, err)
			r := rand.New(rand.NewPCG(5, 0))
			for ply := 0; ply < 30 && !st.Outcome().Over; ply++ {
				m := randomMove(st, r)
				mover := players[st.ToMove()] // seats in the order of the sides, the inviter first
				reply(mover, codec.Encode(st, m))
				if last := mails[len(mails)-1]; strings.Contains(last.Text, "Expected:") {
					t.Fatalf("ply %d refused:\n%s", ply+1, last.Text)
				}
				st, err = st.Apply(m)
				require.NoError(t, err)
			}
			t.Logf("%s %s: %d mails, the largest %d bytes (%s)", gm.name, gm.args, len(mails), largest, largestAt)
			if largest > 80<<10 {
				t.Errorf("the largest mail is %d bytes, want it well under 102 KB", largest)
			}
		})
	}
}
