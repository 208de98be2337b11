package web

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"pbem/archive"
	"pbem/engine"
	"pbem/notation"
)

// t0 is the fixed clock of the fixtures.
var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// fixture is a store with games of every kind and the server over it.
type fixture struct {
	store *archive.Store
	srv   *Server
	// ids of the referee games: castles playing, ziggurat over, rpp (3
	// seats, hex5) playing, elevation invited, ziggurat43 private.
	castles, ziggurat, rpp, invited, private int64
	// entry is an imported elevation game of the event "Spring Cup".
	entry int64
	bc    *Broadcaster
}

// record plays plies random moves (seeded) of game id with options o and
// returns the canonical record; over finishes it by resignation of the
// side to move when the rules did not end it.
func record(t testing.TB, id string, o engine.Options, tags []notation.Tag, plies int, seed uint64, over bool) (string, engine.Outcome) {
	t.Helper()
	c, err := lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	b, err := notation.NewBuilder(c, o, tags)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 1))
	for range plies {
		s := b.Line().State()
		if b.Line().Outcome().Over {
			break
		}
		var m engine.Move
		if sm, ok := s.(engine.Sampler); ok {
			m = sm.RandomMove(r)
		} else {
			legal := s.Legal()
			m = legal[r.IntN(len(legal))]
		}
		if err := b.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	var out engine.Outcome
	if over {
		s := b.Line().State()
		out = b.Line().Outcome()
		if !out.Over {
			loser := s.ToMove()
			out = engine.Win(len(s.Sides()), (loser+1)%len(s.Sides()), "resignation")
		}
		b.Finish(&out, "resign")
	}
	return notation.Format(b.Game()), out
}

func seats(sides []string, names ...string) []archive.Seat {
	var out []archive.Seat
	for i, sd := range sides {
		n := names[i%len(names)]
		out = append(out, archive.Seat{Side: sd, Player: archive.Address{Name: n, Addr: fmt.Sprintf("p%d@example.org", i)}, Token: "t", Joined: true})
	}
	return out
}

func tagsOf(ss []archive.Seat, event string) []notation.Tag {
	tags := []notation.Tag{{Name: "Event", Value: event}, {Name: "Site", Value: "pbem"}, {Name: "Date", Value: "2026.11.20"}, {Name: "Round", Value: "-"}}
	for _, st := range ss {
		v := st.Player.Addr
		if st.Player.Name != "" {
			v = st.Player.Name + " <" + st.Player.Addr + ">"
		}
		tags = append(tags, notation.Tag{Name: st.Side, Value: v})
	}
	return tags
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	ctx := context.Background()
	store, err := archive.Open(ctx, t.TempDir(), &archive.Options{Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	fx := &fixture{store: store, bc: &Broadcaster{}}
	at := t0.Add(-48 * time.Hour)
	add := func(game, status string, o engine.Options, names []string, plies int, seed uint64, event string) int64 {
		t.Helper()
		id, err := store.NewGameID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := lookup(game)
		sides, _ := c.Rules().Sides(o)
		g := &archive.Game{ID: id, Game: game, Status: status, Seats: seats(sides, names...),
			Options:   archive.GameOptions{Players: o.Players, Days: 3, Rated: true, Event: event},
			TurnStart: at, Deadline: at.Add(72 * time.Hour), Thread: fmt.Sprintf("t%d@x", id)}
		ch := &archive.Change{At: at, Games: []*archive.Game{g}}
		if status != archive.Invited {
			rec, _ := record(t, game, o, tagsOf(g.Seats, event), plies, seed, status == archive.Over)
			g.Record = rec
			if status == archive.Over {
				recs, _ := notation.Parse("x", []byte(rec))
				cg, _ := notation.Check(recs[0], lookup)
				e := archive.EntryOf(cg, at)
				e.GameID, e.Rated = id, true
				ch.Entries = []*archive.Entry{e}
			}
		}
		if err := store.Commit(ctx, ch); err != nil {
			t.Fatal(err)
		}
		at = at.Add(time.Hour)
		return id
	}
	fx.castles = add("castles", archive.Playing, engine.Options{}, []string{"Alice", ""}, 9, 1, "Autumn Cup")
	fx.ziggurat = add("ziggurat", archive.Over, engine.Options{}, []string{"Bob", "Alice"}, 14, 2, "Autumn Cup")
	fx.rpp = add("rpp", archive.Playing, engine.Options{Players: 3}, []string{"Carol", "Dan", "Alice"}, 12, 3, "")
	fx.invited = add("elevation", archive.Invited, engine.Options{}, []string{"Eve", "Bob"}, 0, 4, "")
	fx.private = add("ziggurat43", archive.Playing, engine.Options{}, []string{"Mallory", "Bob"}, 6, 5, "Secret")
	rec, _ := record(t, "elevation", engine.Options{}, []notation.Tag{{Name: "Event", Value: "Spring Cup"}, {Name: "Date", Value: "2026.03.01"},
		{Name: "White", Value: "Carol"}, {Name: "Black", Value: "Dan <dan@example.org>"}}, 10, 6, true)
	if _, err := store.ImportFile(ctx, "spring.pgn", []byte(rec), lookup, nil); err != nil {
		t.Fatal(err)
	}
	es, err := store.Entries(ctx, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	fx.entry = es[len(es)-1].ID
	var ids []string
	for _, c := range catalog {
		ids = append(ids, c.Rules().ID())
	}
	fx.srv, err = New(store, &Options{
		Lookup: lookup, Games: ids, Notifier: fx.bc,
		Private: func(g *archive.Game) bool { return g.ID == fx.private },
		Now:     func() time.Time { return t0 },
	})
	if err != nil {
		t.Fatal(err)
	}
	return fx
}
