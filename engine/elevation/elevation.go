// Package elevation implements Elevation (RULES.md section 2): six pieces a
// side on a 6x6 board of terrain stacks, where every turn digs (moves one
// tile between two squares next to the acting piece) and steps (moves the
// piece, capturing by jumping down two or more levels onto an enemy).
//
// A position is an immutable *State; a turn is a Move of one or two Actions
// of one piece. Legal lists every turn once (two orders of the same
// independent actions count as one), Apply accepts any order in which each
// action is legal where it is played.
package elevation

import (
	"encoding/binary"
	"fmt"
	"strings"

	"pbem/engine"
)

// Board geometry and the terrain.
const (
	Size        = 6           // files a-f and ranks 1-6
	NumSquares  = Size * Size // 36
	StartHeight = 3           // every square starts three tiles high
	TotalTiles  = NumSquares * StartHeight
)

// Step rules.
const (
	// Climb is how many levels an ordinary step may climb.
	Climb = 1
	// DragonClimb is how many levels a Dragon's single climb step may climb.
	DragonClimb = 2
	// CaptureDrop is how many levels a piece must stand above an enemy to
	// step onto it and capture it.
	CaptureDrop = 2
)

// Rulings of RULES.md section 2, one constant each.
const (
	// Setup is White's rank 1, files a to f (ruling); Black's rank 6 is the
	// same, file for file.
	Setup = "SFDDFS"
	// SingleOnlyWhenStuck: a single dig or a single ordinary step is a turn
	// only when that piece (judged alone) has no complete turn (ruling).
	// The Dragon's single climb step is always a complete turn.
	SingleOnlyWhenStuck = true
	// LoneDoubleStepIsTurn: a Fish double step on its own is never a turn
	// (ruling). Were it true, it would count as a single step.
	LoneDoubleStepIsTurn = false
)

// Sides of the game, in seat order: White moves first.
const (
	White = 0
	Black = 1
)

var sideNames = []string{"White", "Black"}

// Square is a square of the board: file + Size*rank, a1 = 0, f6 = 35.
type Square int8

// Sq returns the square of file (0 = a) and rank (0 = rank 1).
func Sq(file, rank int) Square { return Square(rank*Size + file) }

// ParseSquare reads a square such as "c4" (lower case).
func ParseSquare(s string) (Square, bool) {
	if len(s) != 2 || s[0] < 'a' || s[0] >= 'a'+Size || s[1] < '1' || s[1] >= '1'+Size {
		return 0, false
	}
	return Sq(int(s[0]-'a'), int(s[1]-'1')), true
}

// Valid reports whether q is on the board.
func (q Square) Valid() bool { return q >= 0 && q < NumSquares }

// File is 0 for a to 5 for f.
func (q Square) File() int { return int(q) % Size }

// Rank is 0 for rank 1 to 5 for rank 6.
func (q Square) Rank() int { return int(q) / Size }

func (q Square) String() string {
	if !q.Valid() {
		return fmt.Sprintf("square(%d)", int(q))
	}
	return string([]byte{byte('a' + q.File()), byte('1' + q.Rank())})
}

// Kind is a kind of piece.
type Kind uint8

// The kinds of pieces.
const (
	NoKind Kind = iota
	Samurai
	Fish
	Dragon
)

// Letter is the kind's upper-case letter (S, F, D).
func (k Kind) Letter() byte { return " SFD"[k&3] }

func (k Kind) String() string {
	return [...]string{"none", "Samurai", "Fish", "Dragon"}[k&3]
}

// KindOf returns the kind named by an upper- or lower-case letter.
func KindOf(letter byte) (Kind, bool) {
	switch letter {
	case 'S', 's':
		return Samurai, true
	case 'F', 'f':
		return Fish, true
	case 'D', 'd':
		return Dragon, true
	}
	return NoKind, false
}

// Piece is what stands on a square: NoPiece, or a kind and a side.
type Piece uint8

// NoPiece is an empty square.
const NoPiece Piece = 0

const blackBit = 4

// MakePiece returns the piece of side (White or Black) and kind.
func MakePiece(side int, k Kind) Piece { return Piece(k) | Piece(side&1)*blackBit }

// Kind of the piece (NoKind for NoPiece).
func (p Piece) Kind() Kind { return Kind(p & 3) }

// Side of the piece: White or Black.
func (p Piece) Side() int { return int(p>>2) & 1 }

// Letter is the piece's letter: upper case White, lower case Black, '.'
// for no piece.
func (p Piece) Letter() byte {
	if p == NoPiece {
		return '.'
	}
	if p.Side() == Black {
		return p.Kind().Letter() + 'a' - 'A'
	}
	return p.Kind().Letter()
}

// ActionKind says what an Action does.
type ActionKind uint8

// The kinds of actions.
const (
	// NoAction is the absent second action of a single-action turn.
	NoAction ActionKind = iota
	// Dig takes a tile from From and lays it on To.
	Dig
	// Step moves the piece to To, capturing an enemy there. A step to the
	// square two diagonal steps away is a Fish double step.
	Step
)

// Action is one action of a turn. From is used by a Dig only and is zero
// otherwise; the zero Action is NoAction.
type Action struct {
	Kind ActionKind
	From Square
	To   Square
}

// DigAction returns the dig from>to.
func DigAction(from, to Square) Action { return Action{Kind: Dig, From: from, To: to} }

// StepAction returns the step (or Fish double step) to q.
func StepAction(q Square) Action { return Action{Kind: Step, To: q} }

// Move is one turn: the actions of the piece standing on At, in the order
// played. Actions[1] is NoAction for a single-action turn.
type Move struct {
	At      Square
	Actions [2]Action
}

// Turn returns the move of the piece on at made of one or two actions.
func Turn(at Square, actions ...Action) Move {
	m := Move{At: at}
	copy(m.Actions[:], actions)
	return m
}

// Len is the number of actions of the move.
func (m Move) Len() int {
	switch {
	case m.Actions[0].Kind == NoAction:
		return 0
	case m.Actions[1].Kind == NoAction:
		return 1
	}
	return 2
}

// Rules is the game Elevation.
type Rules struct{}

var _ engine.Rules = Rules{}

// ID is "elevation".
func (Rules) ID() string { return "elevation" }

// Summary describes the game in one line.
func (Rules) Summary() string {
	return "Elevation: dig the terrain, climb and jump down on the enemy (6x6)"
}

// Help summarises the rules.
func (Rules) Help() string { return help }

const help = `Elevation (6x6, White against Black, White moves first)

Every square is a stack of terrain tiles, 3 high at the start (108 tiles
in all). Each side has 2 Samurai, 2 Fish and 2 Dragons, set up as
S F D D F S on its back rank (White rank 1, Black rank 6).

A turn is the actions of one piece P, standing on p at that moment:
- dig a>b: a and b are two different squares next to p (never p
  itself); a has a tile and no enemy piece (a friendly piece there
  sinks with it); b is empty. One tile goes from a to b.
- step to q: q is next to p, at most 1 level higher. An empty q:
  P moves there. An enemy on q at least 2 levels lower: it is
  captured and P moves there. Nothing else.
- Fish double step: two steps the same way diagonally; the middle
  square is empty; each step keeps the step rule; only the second
  may capture (measured from the middle square).

Samurai: dig then step, or step then dig.
Fish: as the Samurai, or with the double step instead of the step.
Dragon: dig+step, step+dig, dig+dig, step+step (each step may
capture), or one step alone, which may climb 2 levels.
A single dig or single step is a turn only when that piece has no
complete turn; a lone Fish double step is never a turn.

A side with no pieces, or no legal turn when it is to move, loses.
Three times the same position (and side to move) is a draw.`

// Sides returns White and Black; Elevation has no variants.
func (Rules) Sides(o engine.Options) ([]string, error) {
	if err := checkOptions(o); err != nil {
		return nil, err
	}
	return append([]string(nil), sideNames...), nil
}

func checkOptions(o engine.Options) error {
	switch {
	case o.Players != 0 && o.Players != 2:
		return fmt.Errorf("elevation: %d players, want 2", o.Players)
	case o.Board != "":
		return fmt.Errorf("elevation: no board %q, the board is 6x6", o.Board)
	case o.First != 0:
		return fmt.Errorf("elevation: White moves first, not side %d", o.First)
	}
	return nil
}

// Start returns the initial position.
func (Rules) Start(o engine.Options) (engine.State, error) {
	if err := checkOptions(o); err != nil {
		return nil, err
	}
	return StartState(), nil
}

// StartState is the initial position.
func StartState() *State {
	s := &State{}
	for i := range s.h {
		s.h[i] = StartHeight
	}
	for f := 0; f < Size; f++ {
		k, _ := KindOf(Setup[f])
		s.cell[Sq(f, 0)] = MakePiece(White, k)
		s.cell[Sq(f, Size-1)] = MakePiece(Black, k)
	}
	return s
}

// State is a position: heights, pieces and the side to move. It is never
// changed once made.
type State struct {
	h      [NumSquares]uint8
	cell   [NumSquares]Piece
	toMove uint8
}

var (
	_ engine.State   = (*State)(nil)
	_ engine.Sampler = (*State)(nil)
)

// NewState builds a position from heights and pieces (index = Square) and
// the side to move, and checks it (the heights must sum to TotalTiles).
func NewState(heights [NumSquares]int, pieces [NumSquares]Piece, toMove int) (*State, error) {
	s := &State{toMove: uint8(toMove)}
	for i, h := range heights {
		if h < 0 || h > TotalTiles {
			return nil, fmt.Errorf("elevation: height %d on %v", h, Square(i))
		}
		s.h[i] = uint8(h)
	}
	s.cell = pieces
	if toMove != White && toMove != Black {
		return nil, fmt.Errorf("elevation: side %d to move", toMove)
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	return s, nil
}

// Height of square q.
func (s *State) Height(q Square) int { return int(s.h[q]) }

// At is the piece on q.
func (s *State) At(q Square) Piece { return s.cell[q] }

// Sides returns White and Black.
func (s *State) Sides() []string { return append([]string(nil), sideNames...) }

// ToMove is White or Black.
func (s *State) ToMove() int { return int(s.toMove) }

// Key identifies the position: heights, pieces and side to move.
func (s *State) Key() string {
	var b [2*NumSquares + 1]byte
	s.key(&b)
	return string(b[:])
}

// Hash implements engine.Hasher: a hash of Key's bytes read eight at a
// time (the heights, the pieces and the side to move), without building
// the string. Each pair of words is mixed by a full 128-bit product with
// seeds drawn for the run, as wyhash does.
func (s *State) Hash() uint64 {
	h, c := &s.h, &s.cell
	tail := uint64(binary.LittleEndian.Uint32(h[32:])) | cells(c, 32)<<32
	k := &hashSeeds
	x := engine.Mix(binary.LittleEndian.Uint64(h[0:])^k[0], binary.LittleEndian.Uint64(h[8:])^k[1]) ^
		engine.Mix(binary.LittleEndian.Uint64(h[16:])^k[2], binary.LittleEndian.Uint64(h[24:])^k[3]) ^
		engine.Mix(cells(c, 0)^k[4], cells(c, 8)^k[5]) ^
		engine.Mix(cells(c, 16)^k[6], cells(c, 24)^k[7]) ^
		engine.Mix(tail^k[8], uint64(s.toMove)^k[9])
	return engine.Mix(x^k[10], k[11])
}

// cells reads the pieces of c from i, eight of them or up to the end, as a
// little-endian number.
func cells(c *[NumSquares]Piece, i int) uint64 {
	if b := c[i:]; len(b) >= 8 {
		return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
	}
	b := c[NumSquares-4:] // the last four (NumSquares is 4 past a multiple of 8)
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24
}

// hashSeeds make hashes differ from one run to the next.
var hashSeeds = engine.HashKeys()

// key writes Key into b.
func (s *State) key(b *[2*NumSquares + 1]byte) {
	copy(b[:NumSquares], s.h[:])
	for i, p := range s.cell {
		b[NumSquares+i] = byte(p)
	}
	b[2*NumSquares] = s.toMove
}

// Outcome: a side with no pieces, or with no legal turn when it is to move,
// loses.
func (s *State) Outcome() engine.Outcome {
	c := s.toMove
	on := s.sidesOn()
	if on&(1<<c) == 0 {
		return engine.Win(2, int(c^1), "no pieces")
	}
	if on&(1<<(c^1)) == 0 {
		return engine.Win(2, int(c), "no pieces")
	}
	if !s.hasTurn() {
		return engine.Win(2, int(c^1), "no legal turn")
	}
	return engine.Ongoing
}

// sidesOn returns bit 1<<side for each side with a piece on the board. It
// reads the cells eight at a time (see sideBytes).
func (s *State) sidesOn() uint8 {
	var white, black uint64
	for i := 0; i < NumSquares; i += 8 {
		wh, bl := sideBytes(cells(&s.cell, i))
		white |= wh
		black |= bl
	}
	var on uint8
	if white != 0 {
		on |= 1 << White
	}
	if black != 0 {
		on |= 1 << Black
	}
	return on
}

// sideBytes returns, for eight cells read by cells, the high bit of each
// byte that holds a White piece and of each that holds a Black one: a
// piece's byte is not zero, and its bit 2 (blackBit) is its side.
func sideBytes(w uint64) (white, black uint64) {
	const (
		low7 = 0x7f7f7f7f7f7f7f7f
		high = 0x8080808080808080
		side = 0x0404040404040404 // blackBit of every byte
	)
	some := ((w & low7) + low7 | w) & high // the high bit of each byte not zero
	black = (w & side) << 5
	return some &^ black, black
}

func (s *State) count(side uint8) int {
	n := 0
	for _, p := range s.cell {
		if p != NoPiece && uint8(p.Side()) == side {
			n++
		}
	}
	return n
}

// Check verifies that the tiles are conserved, that each side has at most
// its starting pieces and that a side without pieces is the one to move.
func (s *State) Check() error {
	sum := 0
	for _, h := range s.h {
		sum += int(h)
	}
	if sum != TotalTiles {
		return fmt.Errorf("elevation: the heights sum to %d, want %d", sum, TotalTiles)
	}
	if s.toMove > 1 {
		return fmt.Errorf("elevation: side %d to move", s.toMove)
	}
	var n [2][4]int
	for i, p := range s.cell {
		if p&^(blackBit|3) != 0 || (p != NoPiece && p.Kind() == NoKind) {
			return fmt.Errorf("elevation: bad piece %#x on %v", byte(p), Square(i))
		}
		if p != NoPiece {
			n[p.Side()][p.Kind()]++
		}
	}
	for side := range n {
		for k := Samurai; k <= Dragon; k++ {
			if n[side][k] > 2 {
				return fmt.Errorf("elevation: %s has %d %ss, want at most 2", sideNames[side], n[side][k], k)
			}
		}
	}
	if s.count(s.toMove^1) == 0 {
		return fmt.Errorf("elevation: %s has no pieces but %s is to move", sideNames[s.toMove^1], sideNames[s.toMove])
	}
	return nil
}

// Render draws the board seen from view (Black: rank 6 at the bottom),
// each square as its height and its piece, with a legend and the side to
// move or the result.
func (s *State) Render(view int) string {
	var b strings.Builder
	flip := view == Black
	files := []byte("    ")
	for j := 0; j < Size; j++ {
		f := j
		if flip {
			f = Size - 1 - j
		}
		files = append(files, ' ', ' ', ' ', byte('a'+f), ' ')
	}
	files = append(files[:len(files)-1], '\n')
	b.Write(files)
	for i := 0; i < Size; i++ {
		r := Size - 1 - i
		if flip {
			r = i
		}
		fmt.Fprintf(&b, "  %d ", r+1)
		for j := 0; j < Size; j++ {
			f := j
			if flip {
				f = Size - 1 - j
			}
			q := Sq(f, r)
			fmt.Fprintf(&b, " %3d%c", s.h[q], s.cell[q].Letter())
		}
		fmt.Fprintf(&b, "  %d\n", r+1)
	}
	b.Write(files)
	b.WriteString("Each square shows its height (tiles), then its piece ('.': none).\n")
	b.WriteString("S F D = White Samurai, Fish, Dragon; s f d = Black's.\n")
	if o := s.Outcome(); o.Over {
		w := o.Winner()
		fmt.Fprintf(&b, "%s wins: %s has %s.\n", sideNames[w], sideNames[w^1], o.Reason)
	} else {
		fmt.Fprintf(&b, "%s to move.\n", sideNames[s.toMove])
	}
	return b.String()
}
