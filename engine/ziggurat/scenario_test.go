package ziggurat

import (
	"errors"
	"testing"

	"pbem/engine"
)

// A scenario plays one move on a diagram (see helpers_test.go) and expects
// either the position after it or the exact error.
type scenario struct {
	name   string
	before string
	move   string
	after  string // the position after the move; "" for a refused move
	err    string // the exact error of a refused move
	result string // the outcome after the move ("" while the game goes on)
}

func outcomeText(o engine.Outcome) string {
	if !o.Over {
		return ""
	}
	if w := o.Winner(); w >= 0 {
		return sideNames[w] + " wins: " + o.Reason
	}
	return "draw: " + o.Reason
}

func runScenarios(t *testing.T, cases []scenario) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := diagram(t, c.before)
			m := mv(t, c.move)
			key, pic := s.Key(), s.Render(-1)
			got, err := s.Apply(m)
			if s.Key() != key || s.Render(-1) != pic {
				t.Fatalf("Apply(%v) changed the position it was called on", m)
			}
			listed := contains(s.Moves(), m)
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("Apply(%v) = %v, want %q\n%s", m, err, c.err, pic)
				}
				if !errors.Is(err, engine.ErrIllegalMove) {
					t.Errorf("Apply(%v) = %v, which does not wrap ErrIllegalMove", m, err)
				}
				if listed {
					t.Errorf("Legal() lists %v, which Apply refuses", m)
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply(%v) = %v, want success\n%s", m, err, pic)
			}
			if !listed {
				t.Errorf("Legal() does not list %v, which Apply accepts", m)
			}
			want := diagram(t, c.after)
			if got.Key() != want.Key() {
				t.Fatalf("Apply(%v) =\n%s\nwant\n%s", m, got.Render(-1), want.Render(-1))
			}
			if o := outcomeText(got.Outcome()); o != c.result {
				t.Errorf("Outcome() after %v = %q, want %q", m, o, c.result)
			}
			if c.result != "" {
				if n := len(got.Legal()); n != 0 {
					t.Errorf("len(Legal()) after the end = %d, want 0", n)
				}
				if _, err := got.Apply(Move{}); err == nil || err.Error() != "illegal: the game is over ("+got.Outcome().Reason+")" {
					t.Errorf("Apply(pass) after the end = %v, want the game is over", err)
				}
			}
		})
	}
}

// TestCaptures covers the closed list of six captures and the landings
// around them that are not captures.
func TestCaptures(t *testing.T) {
	runScenarios(t, []scenario{{
		name: "zig onto a lone zig one size smaller makes a Keep",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . w . .
			3 . . D . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Dc3xd4",
		after: `to: North
			6 . . . . . .
			5 . . . . . .
			4 . . . [wD] . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name: "Queen onto a lone Drone at distance three makes a Keep",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . d . .
			3 . . . . . .
			2 . . . . . .
			1 Q . . . . .`,
		move: "Qa1xd4",
		after: `to: North
			6 . . . . . .
			5 . . . . . .
			4 . . . [dQ] . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name: "zig onto a lone zig one size larger makes a Tower",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . d . .
			3 . . W . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Wc3xd4",
		after: `to: North
			6 . . . . . .
			5 . . . . . .
			4 . . . [dW] . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name: "North Drone onto a lone Queen makes a Tower",
		before: `to: North
			6 . . . . . .
			5 . . . . d .
			4 . . . . . .
			3 . . Q . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "De5xc3",
		after: `
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . [Qd] . . .
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name: "zig onto a Keep whose top is one size smaller goes on top",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . [Wd] . .
			3 . . . . . .
			2 . Q . . . .
			1 . . . . . .`,
		move: "Qb2xd4",
		after: `to: North
			6 . . . . . .
			5 . . . . . .
			4 . . . [WdQ] . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name: "zig onto a Tower whose top is one size larger goes on top",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . [Qd] . .
			3 . . W . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Wc3xd4",
		after: `to: North
			6 . . . . . .
			5 . . . . . .
			4 . . . [QdW] . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name: "Tower onto a zig one size smaller than its smallest piece takes it under",
		before: `
			6 . . . . . .
			5 . . . w . .
			4 . . . . . .
			3 . . [qD] . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Tc3xd5",
		after: `to: North
			6 . . . . . .
			5 . . . [wqD] . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name: "Tower onto a zig one size larger than its largest piece takes it under",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . . q .
			3 . . [dW] . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Tc3xe4",
		after: `to: North
			6 . . . . . .
			5 . . . . . .
			4 . . . . [qdW] .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name: "a Keep never captures",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . q . . .
			3 . . [wD] . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Kc3-c4",
		err:  "illegal: Keeps never capture",
	}, {
		name: "a Keep never lands on its own side's unit",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . W . . .
			3 . . [wD] . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Kc3-c4",
		err:  "illegal: Keeps never capture",
	}, {
		name: "a Worker onto a Queen is no capture",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . q . .
			3 . . W . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Wc3xd4",
		err:  "illegal: a zig captures a lone zig only one size smaller or larger",
	}, {
		name: "a zig onto a zig of its own size is no capture",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . d . .
			3 . . D . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Dc3xd4",
		err:  "illegal: a zig captures a lone zig only one size smaller or larger",
	}, {
		name: "a Queen onto a Worker is no capture",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . w . .
			3 . . Q . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Qc3xd4",
		err:  "illegal: a zig captures a lone zig only one size smaller or larger",
	}, {
		name: "a zig onto its own side is no capture",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . W . .
			3 . . D . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Dc3xd4",
		err:  "illegal: captures take only the opponent's units",
	}, {
		name: "a zig onto its own side's stack is no capture",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . [wD] . .
			3 . . Q . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Qc3xd4",
		err:  "illegal: captures take only the opponent's units",
	}, {
		name: "a zig onto a Keep whose top is not one size smaller",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . [Wd] . .
			3 . . D . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Dc3xd4",
		err:  "illegal: a zig captures a Keep only when its top is one size smaller",
	}, {
		name: "a zig onto a Tower whose top is not one size larger",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . [Qd] . .
			3 . . D . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Dc3xd4",
		err:  "illegal: a zig captures a Tower only when its top is one size larger",
	}, {
		name: "a Tower onto a stack is no capture",
		before: `
			6 . . . . . .
			5 . . . [Wd] . .
			4 . . . . . .
			3 . . [qD] . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Tc3xd5",
		err:  "illegal: a Tower captures only a lone zig",
	}, {
		name: "a Tower onto a zig inside its size range is no capture",
		before: `
			6 . . . . . .
			5 . . . d . .
			4 . . . . . .
			3 . . [qD] . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Tc3xd5",
		err:  "illegal: a Tower captures only a zig one size smaller than its smallest piece or one size larger than its largest",
	}, {
		name: "a three-piece Tower spanning all sizes captures nothing",
		before: `
			6 . . . . . .
			5 . . . q . .
			4 . . . . . .
			3 . . [QdW] . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Tc3xd5",
		err:  "illegal: a Tower captures only a zig one size smaller than its smallest piece or one size larger than its largest",
	}, {
		name: "a Tower onto its own side's zig is no capture",
		before: `
			6 . . . . . .
			5 . . . W . .
			4 . . . . . .
			3 . . [qD] . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Tc3xd5",
		err:  "illegal: captures take only the opponent's units",
	}})
}

// TestZigMoves: diagonal slides of 1..size squares over empty squares,
// forward to an empty square or a capture, backward only to capture.
func TestZigMoves(t *testing.T) {
	runScenarios(t, []scenario{{
		name: "a Queen slides three squares forward",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 Q . . . . .`,
		move: "Qa1-d4",
		after: `to: North
			6 . . . . . .
			5 . . . . . .
			4 . . . Q . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name: "a North Drone slides forward, down the board",
		before: `to: North
			6 . . . . . .
			5 . . . . . .
			4 . . . d . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Dd4-b2",
		after: `
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . d . . . .
			1 . . . . . .`,
	}, {
		name: "a zig slides at most its size",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . W . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Wc3-e5",
		err:  "illegal: a Worker slides at most 1 square",
	}, {
		name: "a Drone slides at most two squares",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . D . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Dc3-f6",
		err:  "illegal: a Drone slides at most 2 squares",
	}, {
		name: "a zig moves only diagonally",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . D . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Dc3-c4",
		err:  "illegal: a zig moves only diagonally",
	}, {
		name: "a zig slides only over empty squares",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . w . . . .
			1 Q . . . . .`,
		move: "Qa1-c3",
		err:  "illegal: a zig slides only over empty squares (b2 is occupied)",
	}, {
		name: "a zig captures backward",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . D . .
			3 . . . . . .
			2 . w . . . .
			1 . . . . . .`,
		move: "Dd4xb2",
		after: `to: North
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . [wD] . . . .
			1 . . . . . .`,
	}, {
		name: "a zig moves backward only to capture",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . D . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Dd4-c3",
		err:  "illegal: a zig moves backward only to capture",
	}, {
		name: "a North zig moves backward (up) only to capture",
		before: `to: North
			6 . . . . . .
			5 . . . . . .
			4 . . . d . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Dd4-e5",
		err:  "illegal: a zig moves backward only to capture",
	}, {
		name: "pieces inside a stack never move on their own",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . [qD] . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Dc3-d4",
		err:  "illegal: the unit on c3 is a Tower, not a Drone",
	}, {
		name: "a piece under an enemy top does not move",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . [Wd] . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Kc3-c4",
		err:  "illegal: c3 is North's: a side moves only units it owns",
	}, {
		name: "no piece on the square",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Wc3-d4",
		err:  "illegal: no piece on c3",
	}, {
		name: "the letter names the unit on the square",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . D . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Qc3-d4",
		err:  "illegal: the unit on c3 is a Drone, not a Queen",
	}})
}

// TestTowerMoves: knight targets in any direction, with one of two paths
// clear.
func TestTowerMoves(t *testing.T) {
	runScenarios(t, []scenario{{
		name: "a Tower leaps with its straight-first path blocked",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . w . . .
			3 . . [qD] . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Tc3-d5",
		after: `to: North
			6 . . . . . .
			5 . . . [qD] . .
			4 . . w . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name: "a Tower leaps with its diagonal-first path blocked",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . W . .
			3 . . [qD] . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Tc3-d5",
		after: `to: North
			6 . . . . . .
			5 . . . [qD] . .
			4 . . . W . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name: "a Tower with both paths blocked cannot leap",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . w W . .
			3 . . [qD] . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Tc3-d5",
		err:  "illegal: both paths of the Tower are blocked (c4 and d4 are occupied)",
	}, {
		name: "a Tower leaps sideways and backward",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . [qD] . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Tc3-a2",
		after: `to: North
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 [qD] . . . . .
			1 . . . . . .`,
	}, {
		name: "a Tower moves only like a knight",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . [qD] . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Tc3-c5",
		err:  "illegal: a Tower moves only like a knight",
	}})
}

// TestKeepMoves: orthogonal slides through empty squares, at most the size
// of the smallest piece.
func TestKeepMoves(t *testing.T) {
	keepOnW := `
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . [wD] . . .
			2 . . . . . .
			1 . . . . . .`
	keepOnD := `
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . [dQ] . . .
			2 . . . . . .
			1 . . . . . .`
	runScenarios(t, []scenario{{
		name:   "a Keep on a Worker slides one square",
		before: keepOnW,
		move:   "Kc3-c4",
		after: `to: North
			6 . . . . . .
			5 . . . . . .
			4 . . [wD] . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name:   "a Keep's range is set by its smallest piece (Worker)",
		before: keepOnW,
		move:   "Kc3-c5",
		err:    "illegal: this Keep slides at most 1 square (its smallest piece is a Worker)",
	}, {
		name:   "a Keep on a Drone slides two squares",
		before: keepOnD,
		move:   "Kc3-c5",
		after: `to: North
			6 . . . . . .
			5 . . [dQ] . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name:   "a Keep's range is set by its smallest piece (Drone)",
		before: keepOnD,
		move:   "Kc3-c6",
		err:    "illegal: this Keep slides at most 2 squares (its smallest piece is a Drone)",
	}, {
		name:   "a Keep slides backward",
		before: keepOnD,
		move:   "Kc3-c1",
		after: `to: North
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . [dQ] . . .`,
	}, {
		name:   "a Keep slides sideways",
		before: keepOnD,
		move:   "Kc3-a3",
		after: `to: North
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 [dQ] . . . . .
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name:   "a Keep moves only orthogonally",
		before: keepOnD,
		move:   "Kc3-d4",
		err:    "illegal: a Keep moves only orthogonally",
	}, {
		name: "a Keep slides only over empty squares",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . W . . .
			3 . . [dQ] . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Kc3-c5",
		err:  "illegal: a Keep slides only over empty squares (c4 is occupied)",
	}})
}

// TestKindByTopTwo pins the ruling: the top two pieces decide Tower or Keep.
func TestKindByTopTwo(t *testing.T) {
	runScenarios(t, []scenario{{
		name: "[W q D] is a Tower (D under q) though D is larger than W",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . [WqD] . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Tc3-d5",
		after: `to: North
			6 . . . . . .
			5 . . . [WqD] . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name: "[W q D] is not a Keep",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . [WqD] . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Kc3-c4",
		err:  "illegal: the unit on c3 is a Tower, not a Keep",
	}, {
		name: "[w Q] is a Keep, moving one square as its smallest piece is a Worker",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . [wQ] . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Kc3-b3",
		after: `to: North
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . [wQ] . . . .
			2 . . . . . .
			1 . . . . . .`,
	}})
	for _, c := range []struct {
		pieces string
		want   Unit
	}{{"", NoUnit}, {"W", Worker}, {"q", Queen}, {"Dw", Tower}, {"wD", Keep}, {"WqD", Tower}, {"QdW", Tower}, {"WdQ", Keep}, {"wQ", Keep}, {"wqDw", Tower}} {
		if got := StackOf(pieceLetters(c.pieces)...).Kind(); got != c.want {
			t.Errorf("StackOf(%s).Kind() = %v, want %v", c.pieces, got, c.want)
		}
	}
}

// TestExits: zig exits by a forward slide past the far rank, stack tops
// exit from the far rank, one exit per size.
func TestExits(t *testing.T) {
	runScenarios(t, []scenario{{
		name: "a Worker on the far rank exits",
		before: `
			6 . . W . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Wc6-off",
		after: `to: North
			exited: W
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name: "a Queen exits from three ranks away along its one clear diagonal",
		before: `
			6 . . . . . .
			5 . w . . . .
			4 . . Q . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Qc4-off",
		after: `to: North
			exited: Q
			6 . . . . . .
			5 . w . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name: "a North Drone exits beyond rank 1",
		before: `to: North
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . d .
			1 . . . . . .`,
		move: "De2-off",
		after: `
			exited: d
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name: "a zig exit with both paths blocked",
		before: `
			6 . w . W . .
			5 . . D . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Dc5-off",
		err:  "illegal: both exit paths are blocked (b6 and d6 are occupied)",
	}, {
		name: "a Queen exit blocked on its one diagonal within files a-f",
		before: `
			6 . . . . . .
			5 . . . W . .
			4 . . Q . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Qc4-off",
		err:  "illegal: the exit path through d5 is blocked, and the other leaves files a-f",
	}, {
		name: "a zig exit path may not leave files a-f",
		before: `
			6 . . . . . .
			5 . . . q . .
			4 . . . . Q .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Qe4-off",
		err:  "illegal: the exit path through d5 is blocked, and the other leaves files a-f",
	}, {
		name: "a Drone in the corner exits only toward the board",
		before: `
			6 . . . . . .
			5 . . . . . D
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Df5-off",
		after: `to: North
			exited: D
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name: "a zig exits only within its size of the edge",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . W . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Wc4-off",
		err:  "illegal: the Worker on c4 cannot reach beyond rank 6 (it slides at most 1 square)",
	}, {
		name: "a second Worker exit is refused",
		before: `exited: W
			6 . . W . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Wc6-off",
		err:  "illegal: a side exits at most one piece of each size (South has exited a Worker)",
	}, {
		name: "the top of a Tower on the far rank exits; the Tower becomes the enemy's zig",
		before: `
			6 . . [qD] . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Tc6-off",
		after: `to: North
			exited: D
			6 . . q . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name: "the new top of a stack decides its owner and kind",
		before: `
			6 . [QdW] . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Tb6-off",
		after: `to: North
			exited: W
			6 . [Qd] . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name: "a Keep's top exits from the far rank",
		before: `
			6 . [WdQ] . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Kb6-off",
		after: `to: North
			exited: Q
			6 . [Wd] . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name: "a stack's top exits only from the far rank",
		before: `
			6 . . . . . .
			5 . . [qD] . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Tc5-off",
		err:  "illegal: the top of a stack exits only from the opponent's home rank (rank 6)",
	}, {
		name: "a North stack's top exits only from rank 1",
		before: `to: North
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . [Wq] . . .
			1 . . . . . .`,
		move: "Kc2-off",
		err:  "illegal: the top of a stack exits only from the opponent's home rank (rank 1)",
	}, {
		name: "only the owner exits a stack's top",
		before: `to: North
			6 . . [qD] . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Tc6-off",
		err:  "illegal: c6 is South's: a side moves only units it owns",
	}, {
		name: "a second Drone exit from a stack is refused",
		before: `exited: D
			6 . . [qD] . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Tc6-off",
		err:  "illegal: a side exits at most one piece of each size (South has exited a Drone)",
	}})
}

// TestReinforcements: a reserve piece goes on an empty home square whose
// setup piece has its size.
func TestReinforcements(t *testing.T) {
	runScenarios(t, []scenario{{
		name: "a Worker on an empty Worker square",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 Q D W . D Q`,
		move: "W@d1",
		after: `to: North
			reserve: QD qdw
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 Q D W W D Q`,
	}, {
		name: "North places a Queen on f6",
		before: `to: North
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Q@f6",
		after: `reserve: QDW dw
			6 . . . . . q
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name: "a reinforcement matches the setup piece of its square",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 Q D W . D Q`,
		move: "Q@d1",
		err:  "illegal: a Queen goes only where a Queen started (a1 or f1)",
	}, {
		name: "a reinforcement goes on an empty square",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . w . .`,
		move: "W@d1",
		err:  "illegal: reinforcements go only on empty squares (d1 is occupied)",
	}, {
		name: "a reinforcement goes on the home rank",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "W@d2",
		err:  "illegal: reinforcements go on the side's own home rank (rank 1)",
	}, {
		name: "North reinforces only its own home rank",
		before: `to: North
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "W@c1",
		err:  "illegal: reinforcements go on the side's own home rank (rank 6)",
	}, {
		name: "a reinforcement comes from the reserve",
		before: `reserve: QD qdw
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . W .
			2 . . . . . .
			1 . . . . . .`,
		move: "W@d1",
		err:  "illegal: South has no Worker in reserve",
	}})
}

// TestEnd: the exit win, the lost-control loss, passes.
func TestEnd(t *testing.T) {
	// North has no Worker in reserve; two are under South tops.
	runScenarios(t, []scenario{{
		name: "exiting a Queen, a Drone and a Worker wins",
		before: `exited: QD
			6 . . W . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Wc6-off",
		after: `to: North
			exited: QDW
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		result: "South wins: South exited a Queen, a Drone and a Worker",
	}, {
		name: "capturing the opponent's last free Worker: the opponent loses",
		before: `reserve: QDW qd
			6 . . . . . .
			5 . . . . . .
			4 . . . w . .
			3 [wD] . D . . [wD]
			2 . . . . . .
			1 . . . . . .`,
		move: "Dc3xd4",
		after: `to: North
			reserve: QDW qd
			6 . . . . . .
			5 . . . . . .
			4 . . . [wD] . .
			3 [wD] . . . . [wD]
			2 . . . . . .
			1 . . . . . .`,
		result: "South wins: North lost control of its Workers",
	}, {
		name: "a Worker in reserve keeps control",
		before: `
			6 . . . . . .
			5 . . . . . .
			4 . . . w . .
			3 [wD] . D . . [wD]
			2 . . . . . .
			1 . . . . . .`,
		move: "Dc3xd4",
		after: `to: North
			6 . . . . . .
			5 . . . . . .
			4 . . . [wD] . .
			3 [wD] . . . . [wD]
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name: "an exited Worker size cannot be lost",
		before: `reserve: QDW qd
			exited: w
			6 . . . . . .
			5 . . . . . .
			4 . . . w . .
			3 [wD] . D . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Dc3xd4",
		after: `to: North
			reserve: QDW qd
			exited: w
			6 . . . . . .
			5 . . . . . .
			4 . . . [wD] . .
			3 [wD] . . . . .
			2 . . . . . .
			1 . . . . . .`,
	}, {
		name: "exiting a stack's top may lose the mover's own control",
		before: `reserve: QD qdw
			6 . . [WdQ] . . .
			5 . . . . . .
			4 [Wd] . . . . [Wd]
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Kc6-off",
		after: `to: North
			reserve: QD qdw
			exited: Q
			6 . . [Wd] . . .
			5 . . . . . .
			4 [Wd] . . . . [Wd]
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		result: "North wins: South lost control of its Workers",
	}})
}

// TestEndOrder pins the order of the end checks after a move: the mover's
// exit win, then the opponent's loss, then the mover's loss. The positions
// are judged as if North (not to move) had just moved.
func TestEndOrder(t *testing.T) {
	for _, c := range []struct {
		name, pos, want string
	}{{
		name: "the mover's exit win comes before the opponent's loss",
		pos: `reserve: -
			exited: qdw
			6 . . . . . .
			5 . . [Wd] . . .
			4 . . [Qd] . . .
			3 . . [Dq] . . .
			2 . . . . . .
			1 . . . . . .`,
		want: "North wins: North exited a Queen, a Drone and a Worker",
	}, {
		name: "the opponent's loss comes before the mover's loss",
		pos: `reserve: -
			6 . . [Wd] . . .
			5 . . Q . . .
			4 . . q . . .
			3 . . [wD] . . .
			2 . . . . . .
			1 . . . . . .`,
		want: "North wins: South lost control of its Workers",
	}, {
		name: "the mover's loss",
		pos: `reserve: -
			6 . . W . . .
			5 . . Q . . .
			4 . . D . . .
			3 . . [wD] . . .
			2 . . q . . .
			1 . . d . . .`,
		want: "South wins: North lost control of its Workers",
	}} {
		t.Run(c.name, func(t *testing.T) {
			s := diagram(t, c.pos)
			if got := outcomeText(s.Outcome()); got != c.want {
				t.Errorf("Outcome() = %q, want %q\n%s", got, c.want, s.Render(-1))
			}
		})
	}
}

// stuck is a position where neither side has a move: South's Worker on a5
// is blocked by its own Drone, which stands on the far rank with its exit
// size used; North's Worker and Queen block each other likewise.
const stuck = `reserve: -
	exited: Q D q d
	6 . D . . . .
	5 W . . . . .
	4 . . . . . .
	3 . . . . . .
	2 . . . . . w
	1 . . . . q .`

// TestPass: a pass only without any other move; two passes in a row draw.
func TestPass(t *testing.T) {
	runScenarios(t, []scenario{{
		name:   "no pass while a move exists",
		before: "reserve: QDW qdw\n6 q d w w d q\n5 . . . . . .\n4 . . . . . .\n3 . . . . . .\n2 . . . . . .\n1 Q D W W D Q",
		move:   "pass",
		err:    "illegal: a side may pass only when it has no legal move",
	}, {
		name:   "a side with no move passes",
		before: stuck,
		move:   "pass",
		after:  "to: North\npasses: 1\n" + stuck,
	}, {
		name:   "two passes in a row draw",
		before: "to: North\npasses: 1\n" + stuck,
		move:   "pass",
		after:  "passes: 2\n" + stuck,
		result: "draw: two passes in a row",
	}, {
		name: "a move after a pass starts the count again",
		before: `to: North
			passes: 1
			6 . . . . . .
			5 . . . . . .
			4 . . . w . .
			3 . . . . . .
			2 . . . . . .
			1 . . . . . .`,
		move: "Wd4-c3",
		after: `
			6 . . . . . .
			5 . . . . . .
			4 . . . . . .
			3 . . w . . .
			2 . . . . . .
			1 . . . . . .`,
	}})
	s := diagram(t, stuck)
	if got := s.Moves(); len(got) != 1 || got[0] != (Move{}) {
		t.Errorf("Moves() with no move = %v, want [pass]", got)
	}
}

// TestRepetition: threefold repetition is applied by engine.Line, not by
// the state.
func TestRepetition(t *testing.T) {
	s := diagram(t, `
		6 . . . . . .
		5 . . . . . .
		4 . . . . . [Wd]
		3 [wD] . . . . .
		2 . . . . . .
		1 . . . . . .`)
	line := engine.NewLine(s)
	shuttle := []string{"Ka3-a4", "Kf4-f3", "Ka4-a3", "Kf3-f4"}
	for round := range 2 {
		for i, text := range shuttle {
			if o := line.Outcome(); o.Over {
				t.Fatalf("round %d, ply %d: Outcome() = %+v before the third occurrence", round, i, o)
			}
			next, err := line.Play(mv(t, text))
			if err != nil {
				t.Fatalf("Play(%s) = %v", text, err)
			}
			line = next
		}
	}
	if got := line.Repeats(); got != 3 {
		t.Errorf("Repeats() = %d, want 3", got)
	}
	if o := line.Outcome(); !o.Over || o.Reason != "threefold repetition" || o.Winner() != -1 {
		t.Errorf("Line.Outcome() = %+v, want a draw by threefold repetition", o)
	}
	if o := line.State().Outcome(); o.Over {
		t.Errorf("State.Outcome() = %+v, want the game going on (repetition is Line's)", o)
	}
	if _, err := line.Play(mv(t, "Ka3-a4")); err == nil || err.Error() != "illegal: the game is over (threefold repetition)" {
		t.Errorf("Play after the repetition = %v, want the game is over", err)
	}
}

// TestMalformed: moves no notation produces are refused too.
func TestMalformed(t *testing.T) {
	s := diagram(t, `
		6 . . . . . .
		5 . . . . . .
		4 . . . . . .
		3 . . D . . .
		2 . . . . . .
		1 . . . . . .`)
	for _, c := range []struct {
		m    engine.Move
		want string
	}{
		{Move{Kind: Step, Unit: Drone, From: 40, To: 1}, "illegal: no such square Square(40)"},
		{Move{Kind: Step, Unit: Drone, From: square(t, "c3")}, "illegal: no such square -"},
		{Move{Kind: Step, From: square(t, "c3"), To: square(t, "d4")}, "illegal: the move names no unit (the unit on c3 is a Drone)"},
		{Move{Kind: Exit, Unit: Drone, From: square(t, "c3"), To: square(t, "d4")}, "illegal: an exit names no target square"},
		{Move{Kind: Place, Unit: Tower, To: square(t, "c1")}, "illegal: a reinforcement is a Queen, a Drone or a Worker"},
		{Move{Kind: Place, Unit: Worker, From: square(t, "d1"), To: square(t, "c1")}, "illegal: a reinforcement names no source square"},
		{Move{Kind: Place, Unit: Worker}, "illegal: no such square -"},
		{Move{Unit: Worker}, "illegal: a pass names no unit and no square"},
		{Move{Kind: 9}, "illegal: unknown kind of move 9"},
		{"Dc3-d4", "illegal: not a ziggurat move: string"},
		{&Move{Kind: Step, Unit: Drone, From: square(t, "c3"), To: square(t, "d4")}, "illegal: not a ziggurat move: *ziggurat.Move"},
	} {
		if _, err := s.Apply(c.m); err == nil || err.Error() != c.want {
			t.Errorf("Apply(%#v) = %v, want %q", c.m, err, c.want)
		}
	}
}
