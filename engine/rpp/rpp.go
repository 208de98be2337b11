// Package rpp implements Rock, Paper, Pyramid (RULES.md section 4), an
// Icehouse game for 2 to 8 seats on square, hex and octagon boards: L beats
// M, M beats S, S beats L, pieces of one size block each other, and capture
// stacks go to a capture pile at the start of their initiator's next turn.
package rpp

import (
	"fmt"
	"strings"

	"pbem/engine"
)

// Size is a piece size. The zero Size means "none".
type Size uint8

// The three sizes, in nesting order (S inside M inside L).
const (
	Small  Size = 1
	Medium Size = 2
	Large  Size = 3
)

// Letter is the size's piece letter: S, M or L.
func (z Size) Letter() byte { return " SML"[z&3] }

// SizeOf returns the size named by a piece letter (either case), or 0.
func SizeOf(letter byte) Size {
	switch letter | 0x20 {
	case 's':
		return Small
	case 'm':
		return Medium
	case 'l':
		return Large
	}
	return 0
}

// Beats reports whether a piece of size a captures one of size b: L beats
// M, M beats S, S beats L.
func (a Size) Beats(b Size) bool { return beaten(a) == b }

// beaten is the size that z beats; beater the size that beats z.
func beaten(z Size) Size { return [4]Size{0, Large, Small, Medium}[z&3] }
func beater(z Size) Size { return [4]Size{0, Medium, Large, Small}[z&3] }

// Move is one ply: a pass, or one piece stepping from one cell to an
// adjacent one. Comparable with reflect.DeepEqual; Pass moves have every
// other field zero.
type Move struct {
	Pass  bool
	Piece Size
	From  Cell
	To    Cell
}

// Pass is the pass move.
var Pass = Move{Pass: true}

// SeatLetters are the seat labels in seat (and turn) order, Icehouse
// colours; a game with N seats uses the first N.
const SeatLetters = "RYGBKWOP"

// seatColours name the seats for the legend.
var seatColours = [...]string{"red", "yellow", "green", "blue", "black", "white", "orange", "purple"}

// MaxSeats and MinSeats bound the player count; DefaultSeats is used when
// Options.Players is 0.
const (
	MinSeats     = 2
	MaxSeats     = 8
	DefaultSeats = 2
)

// PiecesPerSize is how many pieces of each size a seat has (one nest on
// each of its five home cells).
const PiecesPerSize = 5

// Rulings of RULES.md section 4, one constant each so that a change touches
// one line.
const (
	// StackTopMayMove: a piece on top of an unresolved capture stack may
	// not move (ruling).
	StackTopMayMove = false
	// ResolveAtInitiatorsTurn: a capture stack is resolved at the start of
	// its initiator's next turn, or when that turn would have been if the
	// initiator is eliminated (ruling). When false it resolves at once, at
	// the end of the move that formed or grew it.
	ResolveAtInitiatorsTurn = true
	// PileToTopOwner: a resolved stack's pieces but the top go to the
	// capture pile of the top piece's owner (ruling); when false, to the
	// initiator's.
	PileToTopOwner = true
	// SharedPlaceSkips: seats that share a place use up the places after
	// it (standard competition ranking, 1 1 3), so that ranks read as
	// "places"; our reading of "seats still tied share the place".
	SharedPlaceSkips = true
)

// Rules is Rock, Paper, Pyramid. The zero value is ready to use.
type Rules struct{}

var _ engine.Rules = Rules{}

// ID is "rpp".
func (Rules) ID() string { return "rpp" }

// RandomFirst: the referee draws the first player at random (RULES.md:
// "First player: drawn at random by the referee").
func (Rules) RandomFirst() bool { return true }

// Summary is a one-line description.
func (Rules) Summary() string {
	return "Rock, Paper, Pyramid: Icehouse pieces, L>M>S>L, 2 to 8 players"
}

// Help summarises the rules in plain text.
func (Rules) Help() string { return help }

const help = `Rock, Paper, Pyramid (rpp), 2 to 8 players.

Seats R Y G B K W O P (red, yellow, green, blue, black, white,
orange, purple) play in that order from the first player, skipping
eliminated seats. Boards: square5 (2 players), square7 (3-4, default
for 4), hex5 (3), hex7 (5-6), octagon (7-8); a board serves only
those counts. Each seat has 5 L, 5 M
and 5 S pieces, starting as a nest (S in M in L) on each of the five
cells of its home edge.

A turn: move one piece one step to an adjacent cell, or pass. Only a
free piece or the outermost piece of a nest moves (L, then M, then
S); a piece on top of a capture stack may not move. Pieces never
re-nest; a cell holds at most one piece of each size per seat.

Entering a cell with hostile pieces (free, nested or stack tops):
1. a hostile piece of the same size blocks the move;
2. else a free or top hostile piece that beats the mover captures it
   at once (L beats M, M beats S, S beats L);
3. else the mover captures the piece it beats with everything under
   or nested in it. Nested pieces only block: a full nest blocks all.
The captured pieces and their captor form a capture stack. Until the
initiator's next turn another seat may take the whole stack by
beating its top, or lose a piece to it. Then all but the top go to
the capture pile of the top's owner, and the top is free again.

A seat without live pieces is eliminated. The last seat standing
wins; the others rank in reverse order of elimination. A full round
of passes (standoff) or an agreed stalemate ends the game: resolve
the stacks and rank by pieces in capture piles; ties are recounted
on the pieces of the tied seats only. Eliminated seats rank last.
A threefold repetition does not draw: it ends the game as a standoff
does, and the result is the ranking, e.g. R>Y.`

// Sides names the first o.Players seats (R Y G B K W O P).
func (r Rules) Sides(o engine.Options) ([]string, error) {
	n, _, err := setup(o)
	if err != nil {
		return nil, err
	}
	return sides(n), nil
}

func sides(n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = SeatLetters[i : i+1]
	}
	return s
}

// setup checks the options and returns the seat count and the board.
func setup(o engine.Options) (int, *Board, error) {
	n := o.Players
	if n == 0 {
		n = DefaultSeats
	}
	if n < MinSeats || n > MaxSeats {
		return 0, nil, fmt.Errorf("rpp: %d players; rpp is for %d to %d", n, MinSeats, MaxSeats)
	}
	name := o.Board
	if name == "" {
		name = DefaultBoard(n)
	}
	b := BoardByName(name)
	if b == nil {
		return 0, nil, fmt.Errorf("rpp: unknown board %q (boards: %s)", name, strings.Join(BoardNames, ", "))
	}
	if r := BoardPlayers[b.name]; n < r[0] || n > r[1] {
		return 0, nil, fmt.Errorf("rpp: board %s is for %s players, not %d; for %d players use %s",
			b.name, servesText(b.name), n, n, strings.Join(BoardsFor(n), " or "))
	}
	if o.First < 0 || o.First >= n {
		return 0, nil, fmt.Errorf("rpp: first player %d is not a seat (0 to %d)", o.First, n-1)
	}
	return n, b, nil
}

// Start returns the opening position: a full nest on each home cell of
// each seat, seat o.First to move. Seats take the board's home edges in
// order (see Board.HomeEdges); with fewer seats than edges the last edges
// stay empty.
func (r Rules) Start(o engine.Options) (engine.State, error) {
	n, b, err := setup(o)
	if err != nil {
		return nil, err
	}
	s := newState(len(b.names))
	s.bi, s.seats, s.toMove = b.idx, int8(n), int8(o.First)
	for seat := 0; seat < n; seat++ {
		for _, c := range b.homes[seat] {
			s.cells()[c] = cellState{owner: uint8(seat + 1)}
			s.cells()[c].set(Large, free)
			s.cells()[c].set(Medium, nested)
			s.cells()[c].set(Small, nested)
		}
		s.live[seat] = 3 * PiecesPerSize
	}
	s.zc, s.zr = s.cellsHash(), s.restHash()
	return s, nil
}
