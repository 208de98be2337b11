// Package rpp reads and writes the plies of Rock, Paper, Pyramid
// (NOTATION.md): `R:Lc1-c2`, `Y:Lc3xc4`, `G:Sc3-c4*`, `B:pass`.
package rpp

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"pbem/engine"
	"pbem/engine/rpp"
	"pbem/notation"
)

// plyAST is the grammar of one ply:
//
//	ply   = [label] ( "pass" | [piece] square ("-" | "x") square ["*"] )
//	label = seat letter ":"    piece = L | M | S    square = letter digits
//
// Case does not matter; spaces and tabs between tokens are ignored.
type plyAST struct {
	Label string `parser:"@Label?"`
	Pass  bool   `parser:"( @Pass"`
	Piece string `parser:"| @('L' | 'M' | 'S' | 'l' | 'm' | 's')?"`
	From  string `parser:"  @Square"`
	Sep   string `parser:"  @('-' | 'x' | 'X')"`
	To    string `parser:"  @Square"`
	Star  bool   `parser:"  @'*'? )"`
}

var parser = participle.MustBuild[plyAST](
	participle.Lexer(newPlyLexer()),
)

// ply is a parsed ply, independent of any position.
type ply struct {
	seat     int // index into rpp.SeatLetters, -1 when no label
	pass     bool
	piece    rpp.Size // 0 when omitted
	from, to square
	capture  bool // written x
	star     bool // written *
}

type square struct {
	letter byte // lower case
	number int  // 0 when out of range
	text   string
}

func (q square) String() string { return clip(strings.ToLower(q.text)) }

// maxQuoted is the longest token an error message quotes in full.
const maxQuoted = 16

// clip cuts a long token for a message (a huge word must not become a huge
// message).
func clip(v string) string {
	if utf8.RuneCountInString(v) <= maxQuoted {
		return v
	}
	return string([]rune(v)[:maxQuoted]) + "..."
}

// Codec is the rpp notation. It is safe for concurrent use.
type Codec struct {
	cache notation.Cache[*ply] // parsed plies by text
}

var _ notation.Codec = (*Codec)(nil)

// New returns a codec.
func New() *Codec { return &Codec{} }

// Rules is rpp.
func (c *Codec) Rules() engine.Rules { return rpp.Rules{} }

// RankedResults reports that rpp results are written as rankings such as
// G>R=B.
func (c *Codec) RankedResults() bool { return true }

// parse returns the parsed ply, from the cache when the text was seen.
func (c *Codec) parse(text string) (*ply, error) { return c.cache.Get(text, parse) }

// parseFast reads a ply of the canonical shape (`R:Lc1-c2`, `Y:Lc3xc4*`,
// `B:pass`: a seat label, an upper-case piece letter, squares of a
// lower-case letter and one or two digits without a leading zero, no
// blanks) into p, as the grammar would read it (FuzzFastMatchesGrammar
// keeps the two equal). It reports false, leaving the rest to the grammar,
// for anything else.
func parseFast(text string, p *ply) bool {
	if len(text) < 6 || text[1] != ':' || text[0] < 'A' || text[0] > 'Z' {
		return false
	}
	seat := strings.IndexByte(rpp.SeatLetters, text[0])
	if seat < 0 {
		return false
	}
	*p = ply{seat: seat}
	if text[2:] == "pass" {
		p.pass = true
		return true
	}
	if text[2] != 'L' && text[2] != 'M' && text[2] != 'S' {
		return false
	}
	p.piece = rpp.SizeOf(text[2])
	i, ok := 3, false
	if p.from, i, ok = fastSquare(text, i); !ok || i >= len(text) || text[i] != '-' && text[i] != 'x' {
		return false
	}
	p.capture = text[i] == 'x'
	if p.to, i, ok = fastSquare(text, i+1); !ok {
		return false
	}
	if i < len(text) && text[i] == '*' {
		p.star = true
		i++
	}
	return i == len(text)
}

// fastSquare reads a square of a lower-case letter and one or two digits
// (no leading zero) at i, and returns where it ends.
func fastSquare(text string, i int) (square, int, bool) {
	j := i + 1
	for j < len(text) && j < i+4 && isDigit(text[j]) {
		j++
	}
	if j == i+1 || j == i+4 || j < len(text) && isDigit(text[j]) || !(text[i] >= 'a' && text[i] <= 'z') || text[i+1] == '0' {
		return square{}, 0, false
	}
	n := int(text[i+1] - '0')
	if j == i+3 {
		n = 10*n + int(text[i+2]-'0')
	}
	return square{letter: text[i], number: n, text: text[i:j]}, j, true
}

func parse(text string) (*ply, error) {
	ast, err := parser.ParseString("", text)
	if err != nil {
		return nil, syntaxError(text, err)
	}
	p := &ply{seat: -1, pass: ast.Pass, capture: ast.Sep == "x" || ast.Sep == "X", star: ast.Star}
	if ast.Label != "" {
		i := strings.IndexByte(rpp.SeatLetters, ast.Label[0]&^0x20)
		if i < 0 {
			off := strings.Index(text, ast.Label) // the label is the first token
			return nil, notation.Syntaxf(off, "unexpected %q at column %d; expected a seat label (%s) followed by :",
				ast.Label[:1], len([]rune(text[:off]))+1, strings.Join(strings.Split(rpp.SeatLetters, ""), " "))
		}
		p.seat = i
	}
	if ast.Pass {
		return p, nil
	}
	if ast.Piece != "" {
		p.piece = rpp.SizeOf(ast.Piece[0])
	}
	p.from, p.to = toSquare(ast.From), toSquare(ast.To)
	return p, nil
}

func toSquare(t string) square {
	n, err := strconv.Atoi(t[1:])
	if err != nil || n > 99 {
		n = 0
	}
	return square{letter: t[0] | 0x20, number: n, text: t}
}

// syntaxError turns a parser error into a *notation.SyntaxError that says
// what was found and what was expected there.
func syntaxError(text string, err error) error {
	var perr participle.Error
	if !errors.As(err, &perr) {
		return notation.Syntaxf(0, "%v", err)
	}
	off := min(perr.Position().Offset, len(text))
	found := "end of move"
	var ut *participle.UnexpectedTokenError
	if errors.As(err, &ut) && !ut.Unexpected.EOF() {
		found = strconv.Quote(clip(ut.Unexpected.Value))
		off = ut.Unexpected.Pos.Offset
	}
	col := len([]rune(text[:off])) + 1
	return notation.Syntaxf(off, "unexpected %s at column %d; expected %s", found, col, expected(text[:off]))
}

// expected says what may follow the well-formed prefix of a ply.
func expected(prefix string) string {
	l, _ := (*plyLexer)(nil).LexString("", prefix)
	var last lexer.TokenType
	squares := 0
	for {
		t, _ := l.Next()
		if t.EOF() {
			break
		}
		last = t.Type
		if t.Type == tSquare {
			squares++
		}
		if t.Type == tLetter && squares == 1 {
			last = tPunct // the x between the squares
		}
	}
	switch {
	case last == 0:
		return "a seat label such as R:, a piece letter (L, M, S), a square such as c4, or pass"
	case last == tLabel:
		return "a piece letter (L, M, S), a square such as c4, or pass"
	case last == tLetter:
		return "a square such as c4"
	case last == tSquare && squares == 1:
		return "- or x"
	case last == tPunct && squares == 1:
		return "a square such as c4"
	case last == tSquare:
		return "* or the end of the move"
	}
	return "the end of the move"
}

// Decode reads one ply as a player wrote it and resolves it against s.
func (c *Codec) Decode(es engine.State, text string) (engine.Move, error) {
	if err := notation.CheckPlyLength(text); err != nil {
		return nil, err
	}
	if seat, reason, ok := leaveText(text); ok {
		s, isRpp := es.(*rpp.State)
		if !isRpp {
			return nil, fmt.Errorf("rpp: not an rpp position: %T", es)
		}
		if seat >= s.Seats() {
			return nil, engine.Illegal("no seat %c in this game (seats %s)", rpp.SeatLetters[seat], strings.Join(s.Sides(), " "))
		}
		var m engine.Move = engine.Leave{Seat: seat, Reason: reason}
		if reason == "takeover" {
			m = engine.Rejoin{Seat: seat}
		}
		if _, err := s.Apply(m); err != nil {
			return nil, err
		}
		return m, nil
	}
	var fp ply
	p := &fp
	var err error
	if !parseFast(text, p) {
		if p, err = c.parse(text); err != nil {
			return nil, err
		}
	}
	s, ok := es.(*rpp.State)
	if !ok {
		return nil, fmt.Errorf("rpp: not an rpp position: %T", es)
	}
	seats, turn := s.Seats(), s.ToMove()
	switch {
	case p.seat >= seats:
		return nil, engine.Illegal("no seat %c in this game (seats %s)", rpp.SeatLetters[p.seat], strings.Join(s.Sides(), " "))
	case p.seat >= 0 && p.seat != turn:
		return nil, engine.Illegal("it is %c's turn, not %c's", rpp.SeatLetters[turn], rpp.SeatLetters[p.seat])
	case p.seat < 0 && seats > 2:
		return nil, notation.Syntaxf(0, "missing seat label at column 1; expected %c: before %s (required with more than 2 seats)",
			rpp.SeatLetters[turn], clip(strings.TrimSpace(text)))
	}
	if p.pass {
		if o := s.Outcome(); o.Over {
			return nil, engine.Illegal("the game is over (%s)", o.Reason)
		}
		return s.Boxed(rpp.Pass), nil
	}
	b := s.Board()
	from, ok := b.CellAt(p.from.letter, p.from.number)
	if !ok {
		return nil, engine.Illegal("no such square %s", p.from)
	}
	to, ok := b.CellAt(p.to.letter, p.to.number)
	if !ok {
		return nil, engine.Illegal("no such square %s", p.to)
	}
	z := p.piece
	if z == 0 {
		if z, err = pieceOn(s, from); err != nil {
			return nil, err
		}
	}
	m := rpp.Move{Piece: z, From: from, To: to}
	eff, err := s.Classify(m)
	if err != nil {
		return nil, err
	}
	switch {
	case p.capture && eff != rpp.Captures:
		what := "captures nothing"
		if eff == rpp.Captured {
			what = "is captured on arrival"
		}
		return nil, engine.Illegal("x asserts a capture, but %s %s", c.Encode(s, m), what)
	case p.star && eff != rpp.Captured:
		return nil, engine.Illegal("* says the mover is captured on arrival, but %s is not", c.Encode(s, m))
	}
	return s.Boxed(m), nil // no allocation: a legal step is in the board's table
}

// leaveText reads a seat's leave as the record writes it: Y:resign or
// Y:time, or its coming back with a new player, Y:takeover (any case).
func leaveText(text string) (seat int, reason string, ok bool) {
	t := strings.TrimSpace(text)
	if len(t) < 3 || t[1] != ':' || !maybeLeave(t[2]) {
		return 0, "", false
	}
	reason = strings.ToLower(t[2:])
	if reason != engine.LeaveResign && reason != engine.LeaveTime && reason != "takeover" {
		return 0, "", false
	}
	seat = strings.IndexByte(rpp.SeatLetters, t[0]&^0x20)
	return seat, reason, seat >= 0
}

// maybeLeave reports whether a word starting with c may read as resign,
// time or takeover in lower case: c is not an ASCII letter other than r and
// t. It spares lower-casing every ply (R:Lc1-c2) to find the few leaves.
func maybeLeave(c byte) bool {
	return c >= utf8.RuneSelf || c|0x20 == 'r' || c|0x20 == 't'
}

// pieceOn resolves an omitted piece letter: the one piece of the seat to
// move that may leave from. With none that may move, the largest of its
// pieces there (Classify then says why it cannot), or L.
func pieceOn(s *rpp.State, from rpp.Cell) (rpp.Size, error) {
	var can []string
	var z, any rpp.Size
	for k := rpp.Large; k >= rpp.Small; k-- {
		seat, st := s.At(from, k)
		if seat != s.ToMove() || st == rpp.Absent {
			continue
		}
		if any == 0 {
			any = k
		}
		if st == rpp.Free {
			z = k
			can = append(can, string(k.Letter()))
		}
	}
	switch {
	case len(can) > 1:
		return 0, engine.Illegal("ambiguous: %s can move from %s; write the piece letter",
			strings.Join(can, " and "), s.Board().CellName(from))
	case z != 0:
		return z, nil
	case any != 0:
		return any, nil
	}
	return rpp.Large, nil
}

// Encode writes m in its canonical form, with the seat label: R:Lc1-c2,
// Y:Lc3xc4 (captures), G:Sc3-c4* (captured on arrival), B:pass.
func (c *Codec) Encode(es engine.State, em engine.Move) string {
	if l, ok := em.(engine.Leave); ok {
		return rpp.SeatLetters[l.Seat:l.Seat+1] + ":" + l.Reason
	}
	if r, ok := em.(engine.Rejoin); ok {
		return rpp.SeatLetters[r.Seat:r.Seat+1] + ":takeover"
	}
	s := es.(*rpp.State)
	m := em.(rpp.Move)
	label := rpp.SeatLetters[s.ToMove() : s.ToMove()+1]
	if m.Pass {
		return label + ":pass"
	}
	eff, _ := s.Classify(m)
	b := s.Board()
	var buf strings.Builder
	buf.Grow(16)
	buf.WriteString(label)
	buf.WriteByte(':')
	buf.WriteByte(m.Piece.Letter())
	buf.WriteString(b.CellName(m.From))
	if eff == rpp.Captures {
		buf.WriteByte('x')
	} else {
		buf.WriteByte('-')
	}
	buf.WriteString(b.CellName(m.To))
	if eff == rpp.Captured {
		buf.WriteByte('*')
	}
	return buf.String()
}

// Notation explains the notation.
func (c *Codec) Notation() string { return help }

const help = `rpp moves

A ply is the seat label, a colon, then the move:
  R:Lc1-c2   Red's L steps from c1 to c2
  Y:Lc3xc4   x: the mover captures (the L takes the M on c4)
  G:Sc3-c4*  *: the mover is captured on arrival (by an M on c4)
  B:pass     a pass (always allowed)
  Y:resign   with 3 or more seats, written by the referee where a seat
             left the game (Y:time: its time ran out); play goes on
  Y:takeover written where a new player took over a seat that left
Pieces: L, M, S. Squares: file letter and rank number (c4) on square
boards and the octagon; row letter and the cell's number from the
left end of the row on hex boards (c4 = row c, 4th cell).

Input is lenient: any case (r:lc1-c2), the piece letter may be left
out when only one piece of yours can leave that cell, - is accepted
for a capture, * may be left out, and the seat label may be left out
in a 2-player game. The label must name the seat to move; x when the
move captures nothing, or * when the mover is not captured, is an
error. The referee always writes the canonical form.`
