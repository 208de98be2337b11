// Package ziggurat43 implements Ziggurat, a 43-square chess variant by Glenn
// Overby (RULES.md section 3): two armies of Priest-King, Horse, Archers,
// Chariots and Spearmen on a stepped pyramid. A side wins by capturing the
// enemy Priest-King (by a move or an Archer's shot) or by bringing its own
// Priest-King onto the temple g5, the top of the pyramid. There is no
// check: any move is legal even if it exposes the mover's Priest-King.
package ziggurat43

import (
	"errors"
	"fmt"
	"hash/maphash"
	"math/bits"
	"math/rand/v2"
	"slices"

	"pbem/engine"
)

// The sides, in seat order. Red moves first.
const (
	Red  = 0
	Gold = 1
)

var sideNames = [2]string{"Red", "Gold"}

// NoLegalMoveLoses: a side with no legal move on its turn loses (ruling,
// RULES.md section 3); false would make it a draw. The other ruling of the
// section, the shape of the board, is the data in boardShape.
const NoLegalMoveLoses = true

// Reasons given in Outcome.
const (
	ReasonCaptured = "Priest-King captured"
	ReasonTemple   = "Priest-King on the temple"
	ReasonNoMove   = "no legal move"
)

// Kind is a kind of piece.
type Kind uint8

// The kinds of piece. NoKind marks an empty square.
const (
	NoKind   Kind = iota
	King          // Priest-King: one step in any of 8 directions
	Horse         // knight leap
	Archer        // orthogonal step to an empty cell, or a diagonal shot
	Chariot       // one or two squares orthogonally, jumping the middle one
	Spearman      // one step up, forward or up-forward
	numKinds
)

var (
	kindNames  = [numKinds]string{"", "Priest-King", "Horse", "Archer", "Chariot", "Spearman"}
	kindPlural = [numKinds]string{"", "Priest-Kings", "Horses", "Archers", "Chariots", "Spearmen"}
)

// Letters are the piece letters of the notation, indexed by Kind.
const Letters = " KHACS"

// String is the name of the kind, e.g. "Priest-King".
func (k Kind) String() string {
	if k >= numKinds {
		return fmt.Sprintf("Kind(%d)", uint8(k))
	}
	return kindNames[k]
}

// Letter is the upper-case letter of the kind (K H A C S), or ' '.
func (k Kind) Letter() byte {
	if k >= numKinds {
		return '?'
	}
	return Letters[k]
}

// Piece is the content of a square: Empty, or a kind and a side.
type Piece uint8

// Empty is a square without a piece.
const Empty Piece = 0

const goldBit = 8

// MakePiece returns the piece of kind k for side (Red or Gold).
func MakePiece(side int, k Kind) Piece {
	if side == Gold {
		return Piece(k) | goldBit
	}
	return Piece(k)
}

// Kind is the kind of p (NoKind for Empty).
func (p Piece) Kind() Kind { return Kind(p &^ goldBit) }

// Side is the side of p (Red or Gold); meaningless for Empty.
func (p Piece) Side() int { return int(p>>3) & 1 }

// valid reports whether p is Empty or a real piece.
func (p Piece) valid() bool { return p == Empty || (p&^goldBit > 0 && p&^goldBit < Piece(numKinds)) }

// Move is one ply. A step or capture moves the piece on From to To; an
// Archer's shot (Shot) removes the piece on To and leaves the Archer on
// From.
type Move struct {
	From Square
	To   Square
	Shot bool
}

// String writes m for debugging as from-to or from^to (a shot); the
// notation package writes the canonical form with the piece letter.
func (m Move) String() string {
	if m.Shot {
		return m.From.String() + "^" + m.To.String()
	}
	return m.From.String() + "-" + m.To.String()
}

// startCounts is the army of each side, indexed by Kind.
var startCounts = [numKinds]int{0, 1, 1, 2, 3, 5}

// Rules is the game ziggurat43.
type Rules struct{}

var _ engine.Rules = Rules{}

// ID is "ziggurat43".
func (Rules) ID() string { return "ziggurat43" }

// Summary describes the game in one line.
func (Rules) Summary() string {
	return "Ziggurat: a chess variant on a 43-cell stepped pyramid; take the Priest-King or the temple"
}

// Help summarises the rules in plain text.
func (Rules) Help() string { return help }

const help = `Ziggurat (ziggurat43): a chess variant on a stepped pyramid of 43
cells, ranks 1 to 5: a1-m1, b2-l2, c3-k3, d4-j4, f5-h5. The top
centre cell g5 is the temple.

Red (left) starts: Priest-King a1, Horse c1, Archers d1 d2, Chariots
b1 b2 c2, Spearmen c3 d3 e1 e2 e3. Gold (right) mirrors it: K m1,
H k1, A j1 j2, C l1 l2 k2, S i1 i2 i3 j3 k3. Red moves first.

Pieces capture by moving onto an enemy piece, unless stated otherwise.
K Priest-King: one step in any of the 8 directions.
H Horse: a knight's leap; pieces in between do not matter.
C Chariot: one or two cells along a rank or file; the two-cell move
  jumps the middle cell.
A Archer: steps one cell along a rank or file to an empty cell and
  never captures by moving. Or, as its whole turn, it shoots along
  one of its 4 diagonals: the first piece on that diagonal is removed
  if it is an enemy; the Archer stays. No shot at or through a
  friendly piece.
S Spearman: one step up, toward the enemy, or both (Red: up, right,
  up-right; Gold: up, left, up-left). Never down or backward.

There is no check: a move may leave your Priest-King attacked.
You win by capturing the enemy Priest-King (by a move or a shot) or
by ending a move of your Priest-King on the temple g5. A side with no
legal move loses. A position repeated three times is a draw.
`

// Sides is Red and Gold; the game has no variants.
func (Rules) Sides(o engine.Options) ([]string, error) {
	if o.Players != 0 && o.Players != 2 {
		return nil, fmt.Errorf("ziggurat43: %d players: the game is for 2", o.Players)
	}
	if o.Board != "" {
		return nil, fmt.Errorf("ziggurat43: no board %q: the game has one board", o.Board)
	}
	if o.First != 0 {
		return nil, errors.New("ziggurat43: Red always moves first")
	}
	return []string{sideNames[Red], sideNames[Gold]}, nil
}

// Start returns the setup of the seed, Red to move.
func (r Rules) Start(o engine.Options) (engine.State, error) {
	if _, err := r.Sides(o); err != nil {
		return nil, err
	}
	return StartState(), nil
}

// setup is the initial army of Red; Gold's is its mirror image (file
// a..m becomes m..a).
var setup = []struct {
	kind  Kind
	cells []Square
}{
	{King, []Square{0}},                          // a1
	{Horse, []Square{2}},                         // c1
	{Archer, []Square{3, 3 + Files}},             // d1 d2
	{Chariot, []Square{1, 1 + Files, 2 + Files}}, // b1 b2 c2
	{Spearman, []Square{2 + 2*Files, 3 + 2*Files, 4, 4 + Files, 4 + 2*Files}}, // c3 d3 e1 e2 e3
}

// StartState returns the initial position.
func StartState() *State {
	s := &State{}
	for _, p := range setup {
		for _, q := range p.cells {
			s.board[q] = MakePiece(Red, p.kind)
			s.board[MakeSquare(Files-1-q.File(), q.Rank())] = MakePiece(Gold, p.kind)
		}
	}
	s.kings = [2]Square{0, Files - 1}
	return s
}

// NewState returns the position with the given pieces and side to move. It
// refuses positions that break an invariant (see Check).
func NewState(pieces map[Square]Piece, toMove int) (*State, error) {
	s := &State{toMove: uint8(toMove), kings: [2]Square{NoSquare, NoSquare}}
	if toMove != Red && toMove != Gold {
		return nil, fmt.Errorf("ziggurat43: no side %d", toMove)
	}
	for q, p := range pieces {
		if !q.InGrid() {
			return nil, fmt.Errorf("ziggurat43: no such square %v", q)
		}
		s.board[q] = p
		if p.Kind() == King && p.valid() {
			s.kings[p.Side()] = q
		}
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	return s, nil
}

// State is a position: an immutable value.
type State struct {
	board  [NumSquares]Piece
	kings  [2]Square // NoSquare once captured
	toMove uint8
}

var _ engine.State = (*State)(nil)

// Sides is Red and Gold.
func (s *State) Sides() []string { return []string{sideNames[Red], sideNames[Gold]} }

// ToMove is the side to move.
func (s *State) ToMove() int { return int(s.toMove) }

// At is the piece on q (Empty off the board).
func (s *State) At(q Square) Piece {
	if !q.InGrid() {
		return Empty
	}
	return s.board[q]
}

// ended reports the end of the game by the pieces on the board: a captured
// Priest-King or one on the temple.
func (s *State) ended() (engine.Outcome, bool) {
	for side, k := range s.kings {
		if k == NoSquare {
			return engine.Win(2, 1-side, ReasonCaptured), true
		}
	}
	for side, k := range s.kings {
		if k == Temple {
			return engine.Win(2, side, ReasonTemple), true
		}
	}
	return engine.Ongoing, false
}

// over reports whether ended reports an end.
func (s *State) over() bool {
	k := s.kings
	return k[0] == NoSquare || k[1] == NoSquare || k[0] == Temple || k[1] == Temple
}

// Outcome reports a captured Priest-King, a Priest-King on the temple, or a
// side to move without a legal move.
func (s *State) Outcome() engine.Outcome {
	if s.over() {
		o, _ := s.ended()
		return o
	}
	if !s.hasMove() {
		if NoLegalMoveLoses {
			return engine.Win(2, 1-int(s.toMove), ReasonNoMove)
		}
		return engine.Draw(2, ReasonNoMove)
	}
	return engine.Ongoing
}

// maxPieceMoves bounds the moves of one piece (8 for King, Horse, Chariot
// and Archer).
const maxPieceMoves = 8

// pieceMoves appends to buf the legal moves of the piece of the side to
// move on from. It is the one generator behind Legal and Apply.
func (s *State) pieceMoves(from Square, buf []Move) []Move {
	p := s.board[from]
	side := int(s.toMove)
	if p.Kind() == Archer {
		for _, t := range archerSteps[from] {
			if s.board[t] == Empty {
				buf = append(buf, Move{From: from, To: t})
			}
		}
		for _, ray := range diagonals[from] {
			for _, t := range ray {
				if q := s.board[t]; q != Empty {
					if q.Side() != side {
						buf = append(buf, Move{From: from, To: t, Shot: true})
					}
					break
				}
			}
		}
		return buf
	}
	for _, t := range stepTargets(p.Kind(), side, from) {
		// Empty or an enemy piece.
		if q := s.board[t]; q == Empty || q.Side() != side {
			buf = append(buf, Move{From: from, To: t})
		}
	}
	return buf
}

// maxMoves bounds the moves of a position: K 8, H 8, two A 8 each, three
// C 8 each and five S 3 each.
const maxMoves = 8 + 8 + 2*8 + 3*8 + 5*3

// appendLegal appends the legal moves to buf, by square of the moving piece
// (a1, b1, ... along each rank), then in the order of the move tables.
func (s *State) appendLegal(buf []Move) []Move {
	if s.over() {
		return buf
	}
	for _, q := range cells {
		if p := s.board[q]; p != Empty && p.Side() == int(s.toMove) {
			buf = s.pieceMoves(q, buf)
		}
	}
	return buf
}

// Legal lists the legal moves (see appendLegal for the order); none once
// the game is over.
func (s *State) Legal() []engine.Move {
	var buf [maxMoves]Move
	ms := s.appendLegal(buf[:0])
	if len(ms) == 0 {
		return nil
	}
	out := make([]engine.Move, len(ms))
	for i, m := range ms {
		out[i] = box(m)
	}
	return out
}

var _ engine.Picker = (*State)(nil)

// PickLegal draws Legal()[r.IntN(len(Legal()))] without making the list.
func (s *State) PickLegal(r *rand.Rand) (engine.Move, int) {
	var buf [maxMoves]Move
	ms := s.appendLegal(buf[:0])
	if len(ms) == 0 {
		return nil, 0
	}
	return box(ms[r.IntN(len(ms))]), len(ms)
}

// LegalMoves is Legal as Move values.
func (s *State) LegalMoves() []Move {
	if ms := s.appendLegal(nil); len(ms) > 0 {
		return ms
	}
	return nil
}

// hasMove reports whether the side to move has a legal move: whether
// pieceMoves would list one for any of its pieces, stopping at the first.
func (s *State) hasMove() bool {
	side := int(s.toMove)
	// The pieces of the side to move, found eight squares at a time (only
	// cells hold pieces: see Check), in the order of cells.
	const (
		low7 = 0x7f7f7f7f7f7f7f7f
		high = 0x8080808080808080
		gold = 0x0808080808080808 // goldBit of every byte
	)
	for i := 0; i < NumSquares; i += 8 {
		var w uint64
		if b := s.board[i:]; len(b) >= 8 {
			w = uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
				uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		} else {
			for j, p := range b {
				w |= uint64(p) << (8 * j)
			}
		}
		some := ((w & low7) + low7 | w) & high // the high bit of each byte not zero
		own := (w & gold) << 4                 // the high bit of each Gold piece's byte
		if side == Red {
			own = some &^ own
		}
		for ; own != 0; own &= own - 1 {
			q := Square(i + bits.TrailingZeros64(own)/8)
			if s.pieceHasMove(q, s.board[q], side) {
				return true
			}
		}
	}
	return false
}

// pieceHasMove reports whether pieceMoves lists a move of the piece p of
// side on from.
func (s *State) pieceHasMove(from Square, p Piece, side int) bool {
	if p.Kind() == Archer {
		for _, t := range archerSteps[from] {
			if s.board[t] == Empty {
				return true
			}
		}
		for _, ray := range diagonals[from] {
			for _, t := range ray {
				if q := s.board[t]; q != Empty {
					if q.Side() != side {
						return true
					}
					break
				}
			}
		}
		return false
	}
	for _, t := range stepTargets(p.Kind(), side, from) {
		if q := s.board[t]; q == Empty || q.Side() != side {
			return true
		}
	}
	return false
}

// stepTargets are the squares a king, horse, chariot or spearman of side
// on from may move to when each is empty or holds an enemy piece (the
// archer, which steps and shoots, is apart).
func stepTargets(k Kind, side int, from Square) []Square {
	switch k {
	case King:
		return kingSteps[from]
	case Horse:
		return horseLeaps[from]
	case Chariot:
		return chariotMoves[from]
	case Spearman:
		return spearSteps[side][from]
	}
	return nil
}

// legal reports whether m is generated in s: it reads only what pieceMoves
// reads to list m.
func (s *State) legal(m Move) bool {
	if !m.From.IsCell() || !m.To.IsCell() {
		return false
	}
	side := int(s.toMove)
	p := s.board[m.From]
	if p == Empty || p.Side() != side || s.over() {
		return false
	}
	var targets []Square
	switch p.Kind() {
	case King:
		targets = kingSteps[m.From]
	case Horse:
		targets = horseLeaps[m.From]
	case Chariot:
		targets = chariotMoves[m.From]
	case Spearman:
		targets = spearSteps[side][m.From]
	case Archer:
		if !m.Shot {
			return slices.Contains(archerSteps[m.From], m.To) && s.board[m.To] == Empty
		}
		for _, ray := range diagonals[m.From] {
			for _, t := range ray {
				if q := s.board[t]; q != Empty {
					if t == m.To {
						return q.Side() != side
					}
					break
				}
			}
		}
		return false
	}
	if m.Shot || !slices.Contains(targets, m.To) {
		return false
	}
	q := s.board[m.To]
	return q == Empty || q.Side() != side
}

// Validate returns nil when m is legal in s, else an engine.Illegal error
// naming the rule m breaks.
func (s *State) Validate(m Move) error {
	if s.legal(m) {
		return nil
	}
	return s.diagnose(m)
}

// Captures reports whether the legal move m removes an enemy piece.
func (s *State) Captures(m Move) bool {
	return m.To.IsCell() && s.board[m.To] != Empty
}

// Apply plays m, a Move, and returns the new position.
func (s *State) Apply(em engine.Move) (engine.State, error) {
	m, ok := em.(Move)
	if !ok {
		return nil, engine.Illegal("%T is not a ziggurat43 move", em)
	}
	if !s.legal(m) {
		return nil, s.diagnose(m)
	}
	return s.play(m), nil
}

// Play is Apply for a Move: the position after m, or the engine.Illegal
// error naming the rule m breaks. It judges m once, so that a caller that
// reads a ply and plays it (the notation's DecodePlay) does not generate
// the piece's moves twice.
func (s *State) Play(m Move) (*State, error) {
	if !s.legal(m) {
		return nil, s.diagnose(m)
	}
	return s.play(m), nil
}

// play returns the position after the legal move m.
func (s *State) play(m Move) *State {
	n := *s
	if t := n.board[m.To]; t.Kind() == King {
		n.kings[t.Side()] = NoSquare
	}
	if !m.Shot {
		p := n.board[m.From]
		n.board[m.To] = p
		if p.Kind() == King {
			n.kings[p.Side()] = m.To
		}
		n.board[m.From] = Empty
	} else {
		n.board[m.To] = Empty
	}
	n.toMove ^= 1
	return &n
}

// Key is the 43 cells and the side to move.
func (s *State) Key() string {
	var b [NumCells + 1]byte
	s.key(&b)
	return string(b[:])
}

// Hash implements engine.Hasher: a hash of the board and the side to
// move, which Key spells out. Squares off the board are always empty (see
// Check), so that equal keys mean equal boards and hash alike.
func (s *State) Hash() uint64 {
	return maphash.Comparable(hashSeed, hashed{s.board, s.toMove})
}

// hashed is what Hash hashes: a value of plain bytes, hashed as memory.
type hashed struct {
	board  [NumSquares]Piece
	toMove uint8
}

var hashSeed = maphash.MakeSeed()

// key writes Key into b.
func (s *State) key(b *[NumCells + 1]byte) {
	for i, q := range cells {
		b[i] = byte(s.board[q]) + '0'
	}
	b[NumCells] = "rg"[s.toMove]
}

// Check verifies that pieces stand on cells only, that no side has more
// pieces of a kind than it started with (nothing is ever created), that the
// Priest-Kings are where the state says, and that at most one is captured.
func (s *State) Check() error {
	if s.toMove > 1 {
		return fmt.Errorf("ziggurat43: side to move is %d", s.toMove)
	}
	var count [2][numKinds]int
	var kings [2]Square = [2]Square{NoSquare, NoSquare}
	for q := Square(0); q < NumSquares; q++ {
		p := s.board[q]
		if p == Empty {
			continue
		}
		if !p.valid() {
			return fmt.Errorf("ziggurat43: unknown piece %#x on %v", uint8(p), q)
		}
		if !q.IsCell() {
			return fmt.Errorf("ziggurat43: a piece on %v, which is not a cell", q)
		}
		count[p.Side()][p.Kind()]++
		if p.Kind() == King {
			kings[p.Side()] = q
		}
	}
	for side := range count {
		for k := King; k < numKinds; k++ {
			if count[side][k] > startCounts[k] {
				return fmt.Errorf("ziggurat43: %s has %d %s, more than the %d it starts with", sideNames[side], count[side][k], kindPlural[k], startCounts[k])
			}
		}
	}
	if kings != s.kings {
		return fmt.Errorf("ziggurat43: the Priest-Kings stand on %v and %v, the state says %v and %v", kings[0], kings[1], s.kings[0], s.kings[1])
	}
	if kings[Red] == NoSquare && kings[Gold] == NoSquare {
		return errors.New("ziggurat43: both Priest-Kings are captured")
	}
	if kings[Red] == Temple && kings[Gold] == NoSquare || kings[Gold] == Temple && kings[Red] == NoSquare {
		return errors.New("ziggurat43: one Priest-King is captured and the other is on the temple")
	}
	return nil
}
