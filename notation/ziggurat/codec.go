// Package ziggurat reads and writes the plies of Ziggurat (NOTATION.md):
// `Qa1-d4`, `Qd4xb6`, `Tb3-c5`, `Kb6-b4`, `Qc4-off`, `Kb6-off`, `W@d1`,
// `pass`.
package ziggurat

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"pbem/engine"
	"pbem/engine/ziggurat"
	"pbem/notation"
)

// plyAST is the grammar of one ply:
//
//	ply = "pass"
//	    | [piece] "@" square                              reinforcement
//	    | [piece] square ( "-" ( square | "off" ) | "x" square )
//	piece = Q | D | W | T | K     square = letter digits
//
// Case does not matter; spaces and tabs between tokens are ignored.
type plyAST struct {
	Pass  bool       `parser:"  @Pass"`
	Piece *pieceAST  `parser:"| @@?"`
	At    *squareAST `parser:"  ( At @@"`
	From  *squareAST `parser:"  | @@"`
	Dash  bool       `parser:"    ( @Dash"`
	Off   bool       `parser:"      ( @Off"`
	To    *squareAST `parser:"      | @@ )"`
	X     bool       `parser:"    | @X"`
	XTo   *squareAST `parser:"      @@ ) )"`
}

type (
	pieceAST struct {
		Pos  lexer.Position
		Text string `parser:"@Piece"`
	}
	squareAST struct {
		Text string `parser:"@Square"`
	}
)

var parser = participle.MustBuild[plyAST](
	participle.Lexer(plyLexer{}),
	participle.UseLookahead(2),
)

// ply is a parsed ply, independent of any position.
type ply struct {
	kind     ziggurat.Kind
	unit     ziggurat.Unit // NoUnit when the letter was left out
	from, to square
	capture  bool // written with x
}

// square is a square as written.
type square struct {
	sq   ziggurat.Square // NoSquare when off the board
	text string          // lower case
}

func toSquare(text string) square {
	text = strings.ToLower(text)
	rank := 0
	if len(text) <= 3 {
		rank, _ = strconv.Atoi(text[1:])
	}
	return square{sq: ziggurat.SquareAt(int(text[0]-'a'), rank), text: text}
}

// check returns the error for a square off the board.
func (q square) check() error {
	if q.sq == ziggurat.NoSquare {
		return engine.Illegal("no such square %s", clip(q.text))
	}
	return nil
}

// Codec is the Ziggurat notation. It is safe for concurrent use.
type Codec struct {
	cache notation.Cache[*ply] // parsed plies by text
}

var _ notation.Codec = (*Codec)(nil)

// New returns a codec.
func New() *Codec { return &Codec{} }

// Rules is ziggurat.
func (c *Codec) Rules() engine.Rules { return ziggurat.Rules{} }

// parse returns the parsed ply, from the cache when the text was seen.
func (c *Codec) parse(text string) (*ply, error) { return c.cache.Get(text, parse) }

// parseFast reads a ply of the plain shape (`Qa1-d4`, `Qd4xb6`,
// `Qc4-off`, `W@d1`, `pass`: an upper-case piece letter or none, squares
// of a lower-case letter and digits, - or x, no blanks) into p, as the
// grammar would read it (FuzzFastMatchesGrammar keeps the two equal). It
// reports false, leaving the rest to the grammar, for anything else.
func parseFast(text string, p *ply) bool {
	*p = ply{}
	if text == "pass" {
		return true
	}
	i := 0
	if len(text) > 0 {
		switch text[0] {
		case 'Q', 'D', 'W', 'T', 'K':
			p.unit = ziggurat.UnitOfLetter(text[0])
			i = 1
		}
	}
	if i < len(text) && text[i] == '@' {
		if p.unit > ziggurat.Queen {
			return false // a Tower or Keep placed: the grammar's error
		}
		if notation.SquareEnd(text, i+1) != len(text) {
			return false
		}
		p.kind, p.to = ziggurat.Place, toSquare(text[i+1:])
		return true
	}
	j := notation.SquareEnd(text, i)
	if j < 0 || j+1 >= len(text) {
		return false
	}
	switch text[j] {
	case '-':
		if text[j+1:] == "off" {
			p.kind, p.from = ziggurat.Exit, toSquare(text[i:j])
			return true
		}
	case 'x':
		p.capture = true
	default:
		return false
	}
	if notation.SquareEnd(text, j+1) != len(text) {
		return false
	}
	p.kind, p.from, p.to = ziggurat.Step, toSquare(text[i:j]), toSquare(text[j+1:])
	return true
}

func parse(text string) (*ply, error) {
	ast, err := parser.ParseString("", text)
	if err != nil {
		return nil, syntaxError(text, err)
	}
	p := &ply{}
	if ast.Pass {
		return p, nil // Kind Pass
	}
	if ast.Piece != nil {
		p.unit = ziggurat.UnitOfLetter(ast.Piece.Text[0])
	}
	switch {
	case ast.At != nil:
		if p.unit != ziggurat.NoUnit && !p.unit.IsZig() {
			return nil, notation.Syntaxf(ast.Piece.Pos.Offset, "unexpected %q at column %d; expected a piece letter Q, D or W before @",
				ast.Piece.Text, ast.Piece.Pos.Column)
		}
		p.kind, p.to = ziggurat.Place, toSquare(ast.At.Text)
	case ast.Off:
		p.kind, p.from = ziggurat.Exit, toSquare(ast.From.Text)
	case ast.X:
		p.kind, p.from, p.to, p.capture = ziggurat.Step, toSquare(ast.From.Text), toSquare(ast.XTo.Text), true
	default:
		p.kind, p.from, p.to = ziggurat.Step, toSquare(ast.From.Text), toSquare(ast.To.Text)
	}
	return p, nil
}

// Grammar states, for the messages of syntax errors.
const (
	sStart = iota
	sPiece // after a piece letter
	sAt    // after @
	sFrom  // after the first square
	sDash  // after -
	sX     // after x
	sEnd   // after a complete ply
)

var expect = [...]string{
	sStart: "a move such as Qa1-d4, W@d1 or pass",
	sPiece: "a square such as c4, or @",
	sAt:    "a square such as d1",
	sFrom:  "- or x",
	sDash:  "a square such as d4, or off",
	sX:     "a square such as d4",
	sEnd:   "the end of the move",
}

// next is the grammar as a state machine: the state after a token, or -1.
func next(state int, t lexer.TokenType) int {
	switch {
	case state == sStart && t == tPass:
		return sEnd
	case state == sStart && t == tPiece:
		return sPiece
	case (state == sStart || state == sPiece) && t == tAt:
		return sAt
	case (state == sStart || state == sPiece) && t == tSquare:
		return sFrom
	case state == sFrom && t == tDash:
		return sDash
	case state == sFrom && t == tX:
		return sX
	case (state == sAt || state == sDash || state == sX) && t == tSquare,
		state == sDash && t == tOff:
		return sEnd
	}
	return -1
}

// syntaxError turns a parser error into a *notation.SyntaxError that says
// what was found and what was expected there. It walks the tokens with the
// grammar's state machine to find the first one out of place.
func syntaxError(text string, perr error) error {
	l := &plyTokens{s: text}
	state := sStart
	for {
		t, _ := l.Next()
		n := next(state, t.Type)
		if n < 0 && !(state == sEnd && t.EOF()) {
			found := "end of move"
			if !t.EOF() {
				found = strconv.Quote(clip(t.Value))
			}
			return notation.Syntaxf(t.Pos.Offset, "unexpected %s at column %d; expected %s", found, t.Pos.Column, expect[state])
		}
		if t.EOF() {
			break
		}
		state = n
	}
	// Not reached: the state machine and the grammar agree.
	off := 0
	if pe, ok := perr.(participle.Error); ok {
		off = min(pe.Position().Offset, len(text))
	}
	return notation.Syntaxf(off, "%v", perr)
}

// maxQuoted is the longest token a syntax error quotes in full.
const maxQuoted = 16

// clip cuts a long token for a message (a huge word must not become a huge
// message).
func clip(v string) string {
	if utf8.RuneCountInString(v) <= maxQuoted {
		return v
	}
	r := []rune(v)
	return string(r[:maxQuoted]) + "..."
}

// Decode reads one ply as a player wrote it and resolves it against s. A
// missing piece letter is taken from the board (for a reinforcement, from
// the square's setup piece). Errors: *notation.SyntaxError for text that is
// not a ply; an engine.Illegal error for a square off the board, an empty
// or enemy square, and an x on a move that captures nothing.
func (c *Codec) Decode(s engine.State, text string) (engine.Move, error) {
	if err := notation.CheckPlyLength(text); err != nil {
		return nil, err
	}
	z, err := ziggurat.Of(s)
	if err != nil {
		return nil, err
	}
	var fp ply
	p := &fp
	if !parseFast(text, p) {
		if p, err = c.parse(text); err != nil {
			return nil, err
		}
	}
	m := ziggurat.Move{Kind: p.kind, Unit: p.unit}
	switch p.kind {
	case ziggurat.Place:
		if err := p.to.check(); err != nil {
			return nil, err
		}
		m.To = p.to.sq
		if m.Unit == ziggurat.NoUnit {
			m.Unit = ziggurat.SetupUnit(m.To.File())
		}
	case ziggurat.Step, ziggurat.Exit:
		if err := p.from.check(); err != nil {
			return nil, err
		}
		if p.kind == ziggurat.Step {
			if err := p.to.check(); err != nil {
				return nil, err
			}
			m.To = p.to.sq
		}
		m.From = p.from.sq
		u, err := z.OwnUnit(m.From)
		if err != nil {
			return nil, err
		}
		if m.Unit == ziggurat.NoUnit {
			m.Unit = u
		}
		if p.capture && z.At(m.To) == 0 {
			return nil, engine.Illegal("x asserts a capture, but %s is empty", m.To)
		}
	}
	return ziggurat.Box(m), nil
}

// Encode writes m in its canonical form: piece letter upper case, x for a
// capture.
func (c *Codec) Encode(s engine.State, em engine.Move) string {
	m, ok := em.(ziggurat.Move)
	if !ok {
		return fmt.Sprint(em)
	}
	var b [8]byte
	out := append(b[:0], m.Unit.Letter())
	switch m.Kind {
	case ziggurat.Pass:
		return "pass"
	case ziggurat.Place:
		out = appendSquare(append(out, '@'), m.To)
	case ziggurat.Exit:
		out = append(appendSquare(out, m.From), "-off"...)
	case ziggurat.Step:
		sep := byte('-')
		if z, ok := s.(*ziggurat.State); ok && z.At(m.To) != 0 {
			sep = 'x'
		}
		out = appendSquare(append(appendSquare(out, m.From), sep), m.To)
	default:
		return m.String()
	}
	return string(out)
}

func appendSquare(b []byte, q ziggurat.Square) []byte {
	if !q.Valid() {
		return append(b, q.String()...)
	}
	return append(b, byte('a'+q.File()), byte('0'+q.Rank()))
}

// Notation implements notation.Codec.
func (c *Codec) Notation() string { return help }

const help = `Ziggurat moves, one per turn (the letter names the unit that moves:
Q, D or W for a single piece, T for a Tower, K for a Keep):

  Qa1-d4    the Queen on a1 slides to d4
  Qd4xb6    x marks a capture (- is accepted and written as x);
            x on a move that captures nothing is an error
  Tb3-c5    the Tower on b3 leaps to c5
  Kb6-b4    the Keep on b6 slides to b4
  Qc4-off   the Queen on c4 exits off the far edge
  Kb6-off   the top piece of the Keep on b6 (on the far rank) exits;
            for a Tower write Tb6-off
  W@d1      a Worker from the reserve goes on d1
  pass      only when no other move exists

Input is case-insensitive (qa1-D4), spaces between the parts are
ignored, and the letter may be left out: a1-d4, c4-off, @d1 (the square
decides). The referee always writes the canonical form shown above.
`
