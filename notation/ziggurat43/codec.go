// Package ziggurat43 reads and writes the plies of Ziggurat, the 43-square
// chess variant (NOTATION.md): `Se3-e4`, `Hc1xd3`, `Cc2-e2`, `Ad2^f4`
// (the Archer on d2 shoots the piece on f4 and stays), `Kf4-g5`.
package ziggurat43

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/alecthomas/participle/v2"

	"pbem/engine"
	"pbem/engine/ziggurat43"
	"pbem/notation"
)

// plyAST is the grammar of one ply:
//
//	ply    = [piece] square ("-" | "x" | "^") square
//	piece  = K | H | A | C | S         (either case)
//	square = letter digits             (either case; checked against the board later)
//
// No spaces inside a ply; spaces around it are ignored.
type plyAST struct {
	Piece string `parser:"@Piece?"`
	From  string `parser:"@Square"`
	Op    string `parser:"@Op"`
	To    string `parser:"@Square"`
}

var parser = participle.MustBuild[plyAST](participle.Lexer(plyLexer{}))

// ply is a parsed ply, independent of any position. Squares outside the
// board keep their text for the error.
type ply struct {
	kind             ziggurat43.Kind // NoKind when the letter is left out
	from, to         ziggurat43.Square
	fromText, toText string // lower case
	op               byte   // '-', 'x' or '^'
}

// Codec is the ziggurat43 notation. It is safe for concurrent use.
type Codec struct {
	cache notation.Cache[*ply] // parsed plies by text
}

var _ notation.Codec = (*Codec)(nil)

// New returns a codec.
func New() *Codec { return &Codec{} }

// Rules is ziggurat43.
func (c *Codec) Rules() engine.Rules { return ziggurat43.Rules{} }

// parse returns the parsed ply, from the cache when the text was seen.
func (c *Codec) parse(text string) (*ply, error) { return c.cache.Get(text, parse) }

// parseFast reads a ply of the plain shape (`Se3-e4`, `Hc1xd3`, `Ad2^f4`:
// an upper-case piece letter or none, squares of a lower-case letter and
// digits, the operator -, x or ^, no blanks) into p, as the grammar would
// read it (FuzzFastMatchesGrammar keeps the two equal). It reports false,
// leaving the rest to the grammar, for anything else.
func parseFast(text string, p *ply) bool {
	*p = ply{}
	i := 0
	if len(text) > 0 && strings.IndexByte("KHACS", text[0]) >= 0 {
		p.kind = ziggurat43.Kind(strings.IndexByte(ziggurat43.Letters, text[0]))
		i = 1
	}
	j := notation.SquareEnd(text, i)
	if j < 0 || j >= len(text) || text[j] != '-' && text[j] != 'x' && text[j] != '^' {
		return false
	}
	p.from, p.fromText = plainSquare(text[i:j])
	p.op = text[j]
	k := notation.SquareEnd(text, j+1)
	if k != len(text) {
		return false
	}
	p.to, p.toText = plainSquare(text[j+1 : k])
	return true
}

func parse(text string) (*ply, error) {
	trimmed := strings.TrimSpace(text)
	lead := len(text) - len(strings.TrimLeftFunc(text, unicode.IsSpace))
	ast, err := parser.ParseString("", trimmed)
	if err != nil {
		return nil, syntaxError(text, lead, err)
	}
	p := &ply{op: ast.Op[0]}
	if p.op == 'X' {
		p.op = 'x'
	}
	if ast.Piece != "" {
		p.kind = ziggurat43.Kind(strings.IndexByte(ziggurat43.Letters, ast.Piece[0]&^0x20))
	}
	p.from, p.fromText = toSquare(ast.From)
	p.to, p.toText = toSquare(ast.To)
	return p, nil
}

// plainSquare is toSquare for a square of the plain shape (a lower-case
// letter, then digits: notation.SquareEnd's), read without converting.
func plainSquare(t string) (ziggurat43.Square, string) {
	if len(t) > 3 || t[1] == '0' {
		return ziggurat43.NoSquare, shorten(t)
	}
	rank := int(t[1] - '0')
	if len(t) == 3 {
		rank = 10*rank + int(t[2]-'0')
	}
	q := ziggurat43.MakeSquare(int(t[0]-'a'), rank-1)
	if !q.IsCell() {
		return ziggurat43.NoSquare, t
	}
	return q, t
}

// toSquare reads a square token: NoSquare when it names no cell.
func toSquare(t string) (ziggurat43.Square, string) {
	t = strings.ToLower(t)
	if len(t) > 3 || t[1] == '0' {
		return ziggurat43.NoSquare, shorten(t)
	}
	rank, _ := strconv.Atoi(t[1:])
	q := ziggurat43.MakeSquare(int(t[0]-'a'), rank-1)
	if !q.IsCell() {
		return ziggurat43.NoSquare, t
	}
	return q, t
}

// syntaxError turns a parser error on text[lead:] into a
// *notation.SyntaxError that says what was found and what was expected.
func syntaxError(text string, lead int, err error) error {
	var perr participle.Error
	if !errors.As(err, &perr) {
		return notation.Syntaxf(0, "%v", err)
	}
	off := lead + perr.Position().Offset
	found := "end of move"
	var ut *participle.UnexpectedTokenError
	if errors.As(err, &ut) && !ut.Unexpected.EOF() {
		found = strconv.Quote(shorten(ut.Unexpected.Value))
		off = lead + ut.Unexpected.Pos.Offset
	}
	off = min(off, len(text))
	col := len([]rune(text[:off])) + 1
	return notation.Syntaxf(off, "unexpected %s at column %d; expected %s", found, col, expected(text[lead:off]))
}

// shorten cuts a long token for an error message.
func shorten(s string) string {
	const max = 12
	if len(s) <= max {
		return s
	}
	r := []rune(s[:max])
	return string(r[:len(r)-2]) + "..."
}

// expected says what may follow the well-formed prefix of a ply.
func expected(prefix string) string {
	toks, _ := parser.Lex("", strings.NewReader(prefix))
	n := 0
	piece := false
	for i, t := range toks {
		if t.EOF() {
			break
		}
		if i == 0 && t.Type == tPiece {
			piece = true
		}
		n++
	}
	if n > 0 && !piece {
		n++ // the piece letter that was left out
	}
	switch n {
	case 0:
		return "a piece letter (K H A C S) or a square such as c4"
	case 1, 3:
		return "a square such as c4"
	case 2:
		return `"-", "x" or "^"`
	}
	return "the end of the move"
}

// Decode reads one ply as a player wrote it and resolves it against s.
func (c *Codec) Decode(es engine.State, text string) (engine.Move, error) {
	s, p, m, err := c.read(es, text)
	if err != nil {
		return nil, err
	}
	if err := s.Validate(m); err != nil {
		return nil, err
	}
	if err := c.captures(s, p, m); err != nil {
		return nil, err
	}
	return ziggurat43.Box(m), nil
}

var _ notation.Resolver = (*Codec)(nil)

// DecodePlay is Decode that also returns the position the move leads to
// (notation.Resolver): judging the move and playing it are one pass of
// the engine.
func (c *Codec) DecodePlay(es engine.State, text string) (engine.Move, engine.State, error) {
	s, p, m, err := c.read(es, text)
	if err != nil {
		return nil, nil, err
	}
	next, err := s.Play(m)
	if err != nil {
		return nil, nil, err
	}
	if err := c.captures(s, p, m); err != nil {
		return nil, nil, err
	}
	return ziggurat43.Box(m), next, nil
}

// read parses text and makes its move in s, refusing what no position
// could make legal there (a square off the board, no piece of the mover,
// another piece than the letter names).
func (c *Codec) read(es engine.State, text string) (*ziggurat43.State, *ply, ziggurat43.Move, error) {
	if err := notation.CheckPlyLength(text); err != nil {
		return nil, nil, ziggurat43.Move{}, err
	}
	var fp ply
	p := &fp
	var err error
	if !parseFast(text, p) {
		if p, err = c.parse(text); err != nil {
			return nil, nil, ziggurat43.Move{}, err
		}
	}
	s, ok := es.(*ziggurat43.State)
	if !ok {
		return nil, nil, ziggurat43.Move{}, fmt.Errorf("ziggurat43: not a ziggurat43 position: %T", es)
	}
	if p.from == ziggurat43.NoSquare {
		return nil, nil, ziggurat43.Move{}, engine.Illegal(ziggurat43.ErrNoSuchSquare, p.fromText)
	}
	if p.to == ziggurat43.NoSquare {
		return nil, nil, ziggurat43.Move{}, engine.Illegal(ziggurat43.ErrNoSuchSquare, p.toText)
	}
	pc, err := s.Mover(p.from)
	if err != nil {
		return nil, nil, ziggurat43.Move{}, err
	}
	if p.kind != ziggurat43.NoKind && pc.Kind() != p.kind {
		return nil, nil, ziggurat43.Move{}, engine.Illegal(ErrWrongPiece, p.from, pc.Kind(), p.kind)
	}
	return s, p, ziggurat43.Move{From: p.from, To: p.to, Shot: p.op == '^'}, nil
}

// captures refuses an x on the legal move m that captures nothing.
func (c *Codec) captures(s *ziggurat43.State, p *ply, m ziggurat43.Move) error {
	if p.op == 'x' && !s.Captures(m) {
		return engine.Illegal(ErrNoCapture, c.Encode(s, m))
	}
	return nil
}

// The rules Decode names beyond the engine's own.
const (
	ErrWrongPiece = "the piece on %v is a %v, not a %v"
	ErrNoCapture  = "x asserts a capture, but %s captures nothing"
)

// Encode writes m in its canonical form: the piece letter, the squares
// joined by - (a move), x (a capture) or ^ (an Archer's shot).
func (c *Codec) Encode(es engine.State, em engine.Move) string {
	s := es.(*ziggurat43.State)
	m := em.(ziggurat43.Move)
	var b [8]byte
	out := b[:0]
	if k := s.At(m.From).Kind(); k != ziggurat43.NoKind {
		out = append(out, k.Letter())
	}
	out = append(out, m.From.String()...)
	switch {
	case m.Shot:
		out = append(out, '^')
	case s.Captures(m):
		out = append(out, 'x')
	default:
		out = append(out, '-')
	}
	out = append(out, m.To.String()...)
	return string(out)
}

// Notation explains the notation.
func (c *Codec) Notation() string { return help }

const help = `ziggurat43 moves

A ply is the piece letter, the square it leaves, a sign, and a square:
  Se3-e4   the Spearman on e3 steps to e4
  Hc1xd3   x: the Horse on c1 captures the enemy piece on d3
  Cc2-e2   the Chariot on c2 moves two squares, jumping d2
  Ad2^f4   ^: the Archer on d2 shoots the piece on f4 and stays
  Kf4-g5   the Priest-King reaches the temple g5 (and wins)
Pieces: K Priest-King, H Horse, A Archer, C Chariot, S Spearman.
Squares: file letter a-m and rank number 1-5 on the pyramid
(a1-m1, b2-l2, c3-k3, d4-j4, f5-h5).

Input is lenient: any case (se3-E4), the piece letter may be left
out (e3-e4), and - is accepted for a capture. x when the move
captures nothing is an error, and a shot is always written ^ (an
Archer never captures by moving). The referee always writes the
canonical form.`
