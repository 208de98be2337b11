// Package elevation reads and writes Elevation turns (NOTATION.md):
// `Sa1:b2>a2,-b2` is the Samurai on a1 digging a tile from b2 to a2, then
// stepping to b2. The part before `:` names the acting piece and its square;
// each action is `a>b` (dig), `-q` (step) or `xq` (capturing step), joined
// by commas; a Fish double step is one step to the square two diagonal steps
// away.
//
// Input is lenient (any case, the piece letter optional, `-` for a capture,
// blanks between tokens); output is canonical.
package elevation

import (
	"fmt"
	"strings"

	"github.com/alecthomas/participle/v2"

	"pbem/engine"
	game "pbem/engine/elevation"
	"pbem/notation"
)

// The grammar, as participle struct tags:
//
//	ply    = [Piece] Square ":" action { "," action } .
//	action = Square ">" Square | ( "x" | "-" ) Square .
type plyAST struct {
	Piece   string       `parser:"@Piece?"`
	At      string       `parser:"@Square ':'"`
	Actions []*actionAST `parser:"@@ ( ',' @@ )*"`
}

type actionAST struct {
	From string `parser:"( @Square '>' | @( Capture | '-' ) )"`
	To   string `parser:"@Square"`
}

var parser = participle.MustBuild[plyAST](participle.Lexer(plyLexer{}))

// headAST is the part of a ply before ":"; with actionAST it lets Decode
// parse and cache a ply piece by piece: whole turns rarely repeat, their
// parts constantly. The whole-ply grammar explains syntax errors.
type headAST struct {
	Piece string `parser:"@Piece?"`
	At    string `parser:"@Square"`
}

var (
	headParser   = participle.MustBuild[headAST](participle.Lexer(plyLexer{}))
	actionParser = participle.MustBuild[actionAST](participle.Lexer(plyLexer{}))
)

// square is a square as written, resolved when it is on the board.
type square struct {
	name string // lower case
	sq   game.Square
	ok   bool
}

func newSquare(text string) square {
	name := strings.ToLower(text)
	q, ok := game.ParseSquare(name)
	return square{name: name, sq: q, ok: ok}
}

// plainSquare is newSquare for a square already in lower case (fastSquare's).
func plainSquare(name string) square {
	q, ok := game.ParseSquare(name)
	return square{name: name, sq: q, ok: ok}
}

// action is one parsed action.
type action struct {
	dig     bool
	capture bool // written with x
	from    square
	to      square
}

// parsed is a ply as written, before it meets a position.
type parsed struct {
	piece   game.Kind // NoKind: not written
	at      square
	actions []action
}

type cached struct {
	p   *parsed
	err error
}

// Codec is the notation of Elevation. It is safe for concurrent use.
type Codec struct {
	// Parts of plies by text; whole plies are not cached: a turn combines
	// several parts, so most plies of a collection are new while their
	// parts are few.
	heads notation.Cache[part] // parsed heads ("Sa1") by text
	acts  notation.Cache[part] // parsed actions ("b2>a2", "-b2") by text
}

// part is a parsed head (piece and square) or action.
type part struct {
	piece game.Kind
	at    square
	act   action
}

var _ notation.Codec = (*Codec)(nil)

// New returns a codec.
func New() *Codec { return &Codec{} }

// Rules is Elevation.
func (*Codec) Rules() engine.Rules { return game.Rules{} }

// Decode reads one turn as written and resolves it against s.
func (c *Codec) Decode(s engine.State, text string) (engine.Move, error) {
	if err := notation.CheckPlyLength(text); err != nil {
		return nil, err
	}
	st, ok := s.(*game.State)
	if !ok {
		return nil, fmt.Errorf("elevation: not an elevation position (%T)", s)
	}
	var acts [maxFast]action
	fp := parsed{actions: acts[:0]}
	if parseFast(text, &fp) {
		return resolve(st, &fp)
	}
	p, err := c.parseParts(text)
	if err != nil {
		return nil, err
	}
	return resolve(st, p)
}

// parse parses text: the canonical shape straight from its bytes, anything
// else part by part through the cache.
func (c *Codec) parse(text string) (*parsed, error) {
	var acts [maxFast]action
	p := &parsed{actions: acts[:0]}
	if parseFast(text, p) {
		return p, nil
	}
	return c.parseParts(text)
}

// maxFast is the most actions parseFast reads (a legal turn has two): it
// reads into the room of p.actions, at most maxFast.
const maxFast = 4

// parseFast reads a ply of the canonical shape (`Sa1:b2>a2,-b2`: an
// upper-case piece letter or none, squares of a lower-case letter and one
// digit, no blanks, at most maxFast actions) into p, as the grammar would
// read it (FuzzSplitMatchesGrammar keeps the two equal). It reports false,
// leaving the rest to the grammar, for anything else.
func parseFast(text string, p *parsed) bool {
	i := 0
	if len(text) > 0 && (text[0] == 'S' || text[0] == 'F' || text[0] == 'D') {
		p.piece, _ = game.KindOf(text[0])
		i = 1
	}
	if !fastSquare(text, i) || i+2 >= len(text) || text[i+2] != ':' {
		return false
	}
	p.at = plainSquare(text[i : i+2])
	i += 3
	for {
		var a action
		switch {
		case fastSquare(text, i):
			if i+5 > len(text) || text[i+2] != '>' || !fastSquare(text, i+3) {
				return false
			}
			a = action{dig: true, from: plainSquare(text[i : i+2]), to: plainSquare(text[i+3 : i+5])}
			i += 5
		case i < len(text) && (text[i] == '-' || text[i] == 'x') && fastSquare(text, i+1):
			a = action{capture: text[i] == 'x', to: plainSquare(text[i+1 : i+3])}
			i += 3
		default:
			return false
		}
		n := len(p.actions)
		if n == cap(p.actions) {
			return false
		}
		p.actions = p.actions[:n+1] // no append: p stays on the caller's stack
		p.actions[n] = a
		if i == len(text) {
			return true
		}
		if text[i] != ',' {
			return false
		}
		i++
	}
}

// fastSquare reports whether text holds a square of a lower-case letter and
// one digit at i, ending there (no digit follows).
func fastSquare(text string, i int) bool {
	return i+1 < len(text) && text[i] >= 'a' && text[i] <= 'z' && text[i+1] >= '0' && text[i+1] <= '9' &&
		(i+2 == len(text) || text[i+2] < '0' || text[i+2] > '9')
}

// parseParts reads a ply head and actions through the parts cache; any
// part that does not parse sends the whole ply to the full grammar, which
// locates the error.
func (c *Codec) parseParts(text string) (*parsed, error) {
	head, rest, ok := strings.Cut(text, ":")
	if !ok {
		return parse(text)
	}
	h, ok := c.part(head, true)
	if !ok {
		return parse(text)
	}
	p := &parsed{piece: h.piece, at: h.at, actions: make([]action, 0, strings.Count(rest, ",")+1)}
	for a := range strings.SplitSeq(rest, ",") {
		pa, ok := c.part(a, false)
		if !ok {
			return parse(text)
		}
		p.actions = append(p.actions, pa.act)
	}
	return p, nil
}

func (c *Codec) part(text string, head bool) (part, bool) {
	var pa part
	var err error
	if head {
		pa, err = c.heads.Get(text, parseHead)
	} else {
		pa, err = c.acts.Get(text, parseAction)
	}
	return pa, err == nil
}

func parseHead(text string) (part, error) {
	ast, err := headParser.ParseString("", text)
	if err != nil {
		return part{}, err
	}
	pa := part{at: newSquare(ast.At)}
	if ast.Piece != "" {
		pa.piece, _ = game.KindOf(ast.Piece[0])
	}
	return pa, nil
}

func parseAction(text string) (part, error) {
	ast, err := actionParser.ParseString("", text)
	if err != nil {
		return part{}, err
	}
	return part{act: toAction(ast)}, nil
}

func toAction(a *actionAST) action {
	switch strings.ToLower(a.From) {
	case "-":
		return action{to: newSquare(a.To)}
	case "x":
		return action{capture: true, to: newSquare(a.To)}
	}
	return action{dig: true, from: newSquare(a.From), to: newSquare(a.To)}
}

func parse(text string) (*parsed, error) {
	ast, err := parser.ParseString("", text)
	if err != nil {
		return nil, syntaxError(text, err)
	}
	p := &parsed{at: newSquare(ast.At), actions: make([]action, len(ast.Actions))}
	if ast.Piece != "" {
		p.piece, _ = game.KindOf(ast.Piece[0])
	}
	for i, a := range ast.Actions {
		p.actions[i] = toAction(a)
	}
	return p, nil
}

// resolve turns a parsed ply into the move it names in s.
// The names in its messages are copies, so that p (on the caller's stack)
// does not escape through them.
func resolve(s *game.State, p *parsed) (engine.Move, error) {
	if !p.at.ok {
		return nil, engine.Illegal("no such square %s", strings.Clone(p.at.name))
	}
	for _, a := range p.actions {
		if a.dig && !a.from.ok {
			return nil, engine.Illegal("no such square %s", strings.Clone(a.from.name))
		}
		if !a.to.ok {
			return nil, engine.Illegal("no such square %s", strings.Clone(a.to.name))
		}
	}
	if len(p.actions) > 2 {
		return nil, engine.Illegal("a turn has at most two actions, not %d", len(p.actions))
	}
	at := p.at.sq
	pc := s.At(at)
	switch {
	case pc == game.NoPiece:
		return nil, engine.Illegal("no piece on %v", at)
	case pc.Side() != s.ToMove():
		return nil, engine.Illegal("the piece on %v is not yours", at)
	case p.piece != game.NoKind && p.piece != pc.Kind():
		return nil, engine.Illegal("the piece on %v is a %v, not a %v", at, pc.Kind(), p.piece)
	}
	m := game.Move{At: at}
	for i, a := range p.actions {
		if a.dig {
			m.Actions[i] = game.DigAction(a.from.sq, a.to.sq)
			continue
		}
		if a.capture && !captures(s, at, a.to.sq) {
			return nil, engine.Illegal("x%v asserts a capture, but %v holds no enemy piece", a.to.sq, a.to.sq)
		}
		m.Actions[i] = game.StepAction(a.to.sq)
	}
	return m, nil
}

// captures reports whether a step to q by the piece that stood on at takes
// an enemy piece. The squares a turn's first action empties are the mover's
// own and a captured enemy's, which its second step cannot reach again, so
// the position before the turn decides.
func captures(s *game.State, at, q game.Square) bool {
	t := s.At(q)
	return t != game.NoPiece && t.Side() != s.At(at).Side()
}

// Encode writes m in its canonical form, e.g. `Sa1:b2>a2,-b2`.
func (*Codec) Encode(s engine.State, m engine.Move) string {
	st, ok := s.(*game.State)
	mv, ok2 := m.(game.Move)
	if !ok || !ok2 || !mv.At.Valid() {
		return fmt.Sprint(m)
	}
	var b [32]byte
	out := b[:0]
	if k := st.At(mv.At).Kind(); k != game.NoKind {
		out = append(out, k.Letter())
	}
	out = appendSquare(out, mv.At)
	out = append(out, ':')
	for i := range mv.Len() {
		if i > 0 {
			out = append(out, ',')
		}
		a := mv.Actions[i]
		if !a.From.Valid() || !a.To.Valid() {
			return fmt.Sprint(m)
		}
		if a.Kind == game.Dig {
			out = appendSquare(out, a.From)
			out = append(out, '>')
		} else if captures(st, mv.At, a.To) {
			out = append(out, 'x')
		} else {
			out = append(out, '-')
		}
		out = appendSquare(out, a.To)
	}
	return string(out)
}

func appendSquare(b []byte, q game.Square) []byte {
	return append(b, byte('a'+q.File()), byte('1'+q.Rank()))
}

// Notation explains the notation.
func (*Codec) Notation() string { return help }

const help = `Elevation turns: the acting piece, a colon, then its actions in the
order played, joined by commas.

  Sa1:b2>a2,-b2    the Samurai on a1 digs a tile from b2 to a2, then
                   steps to b2
  Fe1:-c3,b4>b3    the Fish on e1 double-steps to c3, then digs b4 to b3
  Sb5:xc4,b4>d3    the Samurai on b5 captures on c4, then digs b4 to d3
  Dd6:c5>e5,d5>c5  the Dragon on d6 digs twice
  Dd1:-d2          the Dragon on d1 steps (and may climb two levels)

Pieces: S Samurai, F Fish, D Dragon. Actions: a>b digs a tile from a
to b (both next to the piece where it stands then); -q steps to q; xq
steps to q and captures the enemy there. A Fish double step is one -q
or xq to the square two diagonal steps away.
Input may be in any case, may leave out the piece letter (the square
says which piece acts), may write - for a capture and may put blanks
after commas; x on a step that captures nothing is an error. The
referee writes the form shown above.`

// syntaxError describes a parse failure: what was found where, and what
// the grammar expected there.
func syntaxError(text string, err error) error {
	perr, ok := err.(participle.Error)
	if !ok {
		return notation.Syntaxf(0, "%v", err)
	}
	offset := perr.Position().Offset
	// Re-lex up to the failure to know what came before it.
	l := &plyScanner{s: text}
	var prev, prev2 lexerToken
	for {
		tok, _ := l.Next()
		if tok.EOF() || tok.Pos.Offset >= offset {
			found := fmt.Sprintf("%q", tok.Value)
			if tok.EOF() {
				found = "end of text"
			}
			return notation.Syntaxf(tok.Pos.Offset, "unexpected %s at column %d; expected %s",
				found, tok.Pos.Column, expected(prev, prev2))
		}
		prev2, prev = prev, lexerToken{int(tok.Type), tok.Value, true}
	}
}

type lexerToken struct {
	typ   int
	value string
	ok    bool
}

// expected says what the grammar allows after the tokens prev2, prev.
func expected(prev, prev2 lexerToken) string {
	switch {
	case !prev.ok:
		return "a piece letter or a square such as a1"
	case prev.typ == int(tokPiece):
		return "a square such as a1"
	case prev.typ == int(tokSquare) && (!prev2.ok || prev2.typ == int(tokPiece)):
		return `":"`
	case prev.value == ":" || prev.value == ",":
		return "an action such as b2>a2, -b2 or xb2"
	case prev.typ == int(tokSquare) && (prev2.value == ":" || prev2.value == ","):
		return `">"`
	case prev.value == ">":
		return "a square such as a2"
	case prev.value == "-" || prev.typ == int(tokCapture):
		return "a square such as b2"
	default:
		return `"," or the end of the turn`
	}
}
