package rpp

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"pbem/engine"
)

// TestLegalIsComplete plays random games and, at every position, tries
// every piece size from every occupied cell (and some empty ones) to
// every neighbour and to a cell two steps away: Apply succeeds exactly for the moves Legal lists, refusals
// wrap ErrIllegalMove with a reason, Classify agrees with Apply, and the
// effect a move claims shows in the live piece counts.
func TestLegalIsComplete(t *testing.T) {
	games := 2
	if testing.Short() {
		games = 1
	}
	for _, o := range []engine.Options{{}, {Players: 3}, {Players: 4}, {Players: 6}, {Players: 8}} {
		r := rand.New(rand.NewPCG(uint64(o.Players), 7))
		for g := range games {
			st, _ := Rules{}.Start(o)
			s := st.(*State)
			for ply := 0; ply < 150 && !s.Outcome().Over; ply++ {
				checkAllMoves(t, s, o, g, ply)
				if t.Failed() {
					return
				}
				ms := s.Legal()
				n, err := s.Apply(ms[r.IntN(len(ms))])
				if err != nil {
					t.Fatal(err)
				}
				s = n.(*State)
				if err := s.Check(); err != nil {
					t.Fatalf("%+v game %d ply %d: %v\n%s", o, g, ply, err, s.Render(-1))
				}
			}
		}
	}
}

func checkAllMoves(t *testing.T, s *State, o engine.Options, g, ply int) {
	t.Helper()
	legal := map[Move]bool{}
	for _, m := range s.Legal() {
		legal[m.(Move)] = true
	}
	b := s.board()
	tried := 0
	for c := range b.Cells() {
		if s.cells()[c].owner == 0 && c%7 != 0 {
			continue // every occupied cell, and some empty ones
		}
		targets := append([]Cell(nil), b.adj[c]...)
		far := b.adj[b.adj[c][0]]
		for _, x := range []Cell{far[len(far)-1], Cell(c)} {
			if !b.Adjacent(Cell(c), x) {
				targets = append(targets, x)
			}
		}
		for _, to := range targets {
			for z := Small; z <= Large; z++ {
				m := Move{Piece: z, From: Cell(c), To: to}
				n, err := s.Apply(m)
				eff, cerr := s.Classify(m)
				if (err == nil) != legal[m] || (cerr == nil) != legal[m] {
					t.Fatalf("%+v game %d ply %d: Apply(%v) = %v, Classify = %v, Legal lists it: %v\n%s",
						o, g, ply, m, err, cerr, legal[m], s.Render(-1))
				}
				if err != nil {
					var ie *engine.IllegalError
					if !errors.Is(err, engine.ErrIllegalMove) || !errors.As(err, &ie) || ie.Rule == "" ||
						!reflect.DeepEqual(err, cerr) {
						t.Fatalf("Apply(%v) = %v, Classify = %v: want the same IllegalError", m, err, cerr)
					}
					continue
				}
				tried++
				ns := n.(*State)
				me, other := int(s.toMove), -1
				if tc := s.cells()[to]; tc.owner != 0 && int(tc.owner)-1 != me {
					other = int(tc.owner) - 1
				}
				dm := int(s.live[me]) - int(ns.live[me])
				do := 0
				if other >= 0 {
					do = int(s.live[other]) - int(ns.live[other])
				}
				switch {
				case eff == Steps && (dm != 0 || other >= 0):
					t.Fatalf("Apply(%v) steps but loses %d pieces, enters %d", m, dm, other)
				case eff == Captured && (dm != 1 || do != 0):
					t.Fatalf("Apply(%v) is captured but loses %d and takes %d", m, dm, do)
				case eff == Captures && (dm != 0 || do < 1):
					t.Fatalf("Apply(%v) captures but loses %d and takes %d", m, dm, do)
				}
			}
		}
	}
	if tried+1 != len(legal) {
		t.Fatalf("%+v game %d ply %d: %d moves applied, Legal lists %d besides pass", o, g, ply, tried, len(legal)-1)
	}
}
