// Package notation reads and writes game records: the record grammar (a
// participle grammar over a hand-written lexer), the record checker behind
// `pbem check`, the canonical writer, and the Codec interface each game's
// move notation implements (notation/<game>).
package notation

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// Pos is a place in a record file: 1-based line and column (in bytes), and
// the 0-based byte offset.
type Pos struct {
	Line, Col, Offset int
}

func toPos(p lexer.Position) Pos { return Pos{Line: p.Line, Col: p.Column, Offset: p.Offset} }

// Tag is a tag pair, [Name "Value"].
type Tag struct {
	Name, Value string
	Pos         Pos
}

// Record is one game as written: tags, movetext and result token.
type Record struct {
	File  string
	Index int // 1-based number of the game in its file
	Pos   Pos
	Tags  []Tag
	Main  *Line
	// Result is the result token as written ("1-0", "*", "G>R=B").
	Result    string
	ResultPos Pos
}

// Tag returns the value of the first tag named name (case-sensitive) and
// whether there is one.
func (r *Record) Tag(name string) (string, bool) {
	for _, t := range r.Tags {
		if t.Name == name {
			return t.Value, true
		}
	}
	return "", false
}

// SetTag replaces the value of tag name, or adds it.
func (r *Record) SetTag(name, value string) {
	for i := range r.Tags {
		if r.Tags[i].Name == name {
			r.Tags[i].Value = value
			return
		}
	}
	r.Tags = append(r.Tags, Tag{Name: name, Value: value})
}

// Line is a sequence of plies: the main line or a variation.
type Line struct {
	Comments []string // comments before the first ply
	Plies    []*Ply
	Pos      Pos // of the opening "(" for a variation
}

// Ply is one ply with what is written around it.
type Ply struct {
	Text string // as written
	Pos  Pos
	// Number is the move number written before the ply (HasNumber), with
	// Continues for the N... form.
	HasNumber bool
	Continues bool
	// Filled in by Check (or a Builder), beside the flags above so that a
	// ply, of which a record has hundreds of thousands, stays small.
	opens      bool  // the ply opens its round
	leave      bool  // the ply is a seat's leave (engine.Leave): no move number
	round      int32 // its round (at most MaxGameTokens)
	Number     int
	NumberPos  Pos
	NumberTok  string
	Annots     []string // ! ? !! ?? !? ?! + #
	NAGs       []int
	Comments   []string // comments after the ply
	Variations []*Line  // alternatives to this ply

	// Filled in by Check (or a Builder).
	Canon string // canonical spelling
}

// grammar: one game. A file is split into games before parsing (see split),
// so that a syntax error costs one game and checking resumes at the next.
type gGame struct {
	Pos    lexer.Position
	Tags   []*gTag  `parser:"@@*"`
	Body   []*gElem `parser:"@@*"`
	Result *gResult `parser:"@@"`
}

type gTag struct {
	Pos   lexer.Position
	Name  string `parser:"LBrack @Word"`
	Value string `parser:"@String RBrack"`
}

type gElem struct {
	Pos       lexer.Position
	Ply       string      `parser:"  @Word"`
	Number    string      `parser:"| @Number"`
	Annot     string      `parser:"| @Annot"`
	NAG       string      `parser:"| @NAG"`
	Comment   string      `parser:"| @Comment"`
	Variation *gVariation `parser:"| @@"`
}

type gVariation struct {
	Pos  lexer.Position
	Body []*gElem `parser:"LParen @@* RParen"`
}

type gResult struct {
	Pos   lexer.Position
	Value string `parser:"@Result"`
}

var parser = participle.MustBuild[gGame](
	participle.Lexer(definition{}),
	participle.UseLookahead(1),
)

// Parse reads every game of a record file. Games with a syntax error are
// reported in problems (one each) and left out of the records; reading
// resumes at the next game. The file is UTF-8, possibly after a byte-order
// mark, or UTF-16 after a byte-order mark; what exceeds the bounds of
// lexer.go (MaxPly, MaxText, MaxDepth, MaxGameTokens) is a syntax error.
func Parse(file string, data []byte) (records []*Record, problems []*Problem) {
	eachGame(file, data, func(rec *Record, p *Problem) {
		if p != nil {
			problems = append(problems, p)
		} else {
			records = append(records, rec)
		}
	})
	return records, problems
}

// eachGame reads the games of a file one at a time, so that memory stays
// proportional to the largest game, not the file.
func eachGame(file string, data []byte, each func(*Record, *Problem)) {
	data, start, p := decodeText(file, data)
	if p != nil {
		each(nil, p)
		return
	}
	l := newLexState(file, data)
	l.off = start
	// room for a record's tokens (about one in four bytes) up front, so
	// that a single game's is not grown append by append; a file of many
	// games reuses it
	c := &chunker{l: l, buf: make([]lexer.Token, 0, min((len(data)-start)/4, 1024)+16)}
	for n := 1; ; n++ {
		chunk := c.next()
		if chunk == nil {
			return
		}
		each(parseGame(file, n, chunk, c.invalid))
	}
}

// chunker cuts the token stream into games: a game ends after a result token
// outside any variation, or before a "[" that follows movetext (a game
// without a result), or at the end of the file. Every chunk ends with EOF.
//
// A chunk keeps its tokens up to the first that makes the game unreadable
// (an invalid token, variations nested deeper than MaxDepth, more than
// MaxGameTokens tokens) and drops the rest of the game: that token is the
// one reported, and the recursive grammar never sees deep nesting.
//
// The lexer writes the tokens straight into the chunk (a token is large to
// copy); those it lexed past the end of a game (the next game's first tag,
// or the token after a result) wait in carry for the next chunk.
type chunker struct {
	l     *lexState
	carry []lexer.Token // the first tokens of the next game
	buf   []lexer.Token // reused: a chunk is parsed before the next is cut
	// invalid says what is wrong with each tInvalid token of the chunk.
	invalid map[int]string
	// typo counts the typographic characters of the chunk (typography.go).
	typo int
}

func (c *chunker) next() []lexer.Token {
	chunk := append(c.buf[:0], c.carry...)
	c.carry = c.carry[:0]
	typo := c.l.typo
	defer func() { c.buf, c.typo = chunk[:0], c.l.typo-typo }()
	clear(c.invalid)
	depth, movetext, inTag, broken, count := 0, false, false, false, 0
	// chunk[:w] are the tokens kept, chunk[k] the token read; w == k
	// until the game is broken, and the tokens dropped after that are
	// dropped from chunk as soon as they are read (so that a broken game
	// of any length takes little room).
	w := 0
	for k := 0; ; k++ {
		for k == len(chunk) {
			chunk = c.l.lex(chunk)
		}
		t := &chunk[k] // valid until more tokens are lexed
		msg := ""
		if t.Type == tInvalid {
			msg = c.l.invalid[t.Pos.Offset]
			delete(c.l.invalid, t.Pos.Offset)
		}
		switch t.Type {
		case tEOF:
			if w == 0 {
				return nil
			}
			chunk[w] = *t
			return chunk[:w+1]
		case tLBrack:
			if movetext {
				pos := t.Pos
				c.carry = append(c.carry, chunk[k:]...)
				chunk[w] = lexer.Token{Type: tEOF, Value: "[", Pos: pos}
				return chunk[:w+1]
			}
			inTag = true
		case tRBrack:
			inTag = false
		case tLParen:
			depth++
			movetext = true
			if depth > MaxDepth && !broken {
				t.Type, msg = tInvalid, fmt.Sprintf(`variations nested more than %d deep; expected ")" to close one`, MaxDepth)
			}
		case tRParen:
			depth = max(depth-1, 0)
			movetext = true
		case tResult:
			if depth == 0 && !inTag {
				if !broken {
					w++ // w == k+1
				}
				for len(chunk) == k+1 {
					chunk = c.l.lex(chunk)
				}
				c.carry = append(c.carry, chunk[k+1:]...)
				chunk[w] = lexer.Token{Type: tEOF, Pos: c.carry[0].Pos}
				return chunk[:w+1]
			}
		case tWord, tString, tInvalid:
			if !inTag {
				movetext = true
			}
		default:
			movetext = true
		}
		if broken {
			if k+1 == len(chunk) {
				chunk, k = chunk[:w], w-1
			}
			continue
		}
		if count++; count > MaxGameTokens && t.Type != tInvalid {
			t.Type, msg = tInvalid, fmt.Sprintf("game of more than %d tokens is too long; expected at most %d plies, move numbers, comments and other tokens", MaxGameTokens, MaxGameTokens)
		}
		if t.Type == tInvalid {
			if c.invalid == nil {
				c.invalid = map[int]string{}
			}
			c.invalid[t.Pos.Offset] = msg
			broken = true
		}
		w++
	}
}

func parseGame(file string, n int, toks []lexer.Token, invalid map[int]string) (*Record, *Problem) {
	return parseGameIn(nil, file, n, toks, invalid)
}

// parseGameIn is parseGame taking the memory of a record read the fast way
// from m (nil: allocated).
func parseGameIn(m *gameMem, file string, n int, toks []lexer.Token, invalid map[int]string) (*Record, *Problem) {
	if len(invalid) == 0 {
		if r := readFastIn(m, file, n, toks); r != nil {
			return r, nil
		}
	}
	return parseSlow(file, n, toks, invalid)
}

// parseSlow reads a game by the grammar, the definition of a record.
func parseSlow(file string, n int, toks []lexer.Token, invalid map[int]string) (*Record, *Problem) {
	p := readable(file, n, toks, invalid)
	if p == nil {
		pl, err := lexer.Upgrade(&sliceLexer{toks: toks})
		if err == nil {
			var g *gGame
			g, err = parser.ParseFromLexer(pl)
			if err == nil {
				return build(file, n, g)
			}
		}
		p = syntaxProblem(file, n, toks, invalid, err)
	}
	if toks[0].Type != tLBrack && toks[0].Type != tEOF {
		// Text without tags that does not read as movetext either.
		t := toks[0]
		return nil, &Problem{File: file, Game: n, Line: t.Pos.Line, Col: t.Pos.Column, Token: t.Value,
			Msg: "no [Game] tag: is this a game record?", offset: t.Pos.Offset}
	}
	return nil, p
}

// readable finds what the grammar would report poorly, in file order: a
// tag without its "]", an invalid token, an unbalanced parenthesis.
func readable(file string, n int, toks []lexer.Token, invalid map[int]string) *Problem {
	for i := 0; i+3 < len(toks) && toks[i].Type == tLBrack; i += 4 {
		name, value, next := toks[i+1], toks[i+2], toks[i+3]
		if name.Type != tWord || value.Type != tString {
			break
		}
		if next.Type == tRBrack {
			continue
		}
		if next.Type == tLBrack || next.Type == tEOF || next.Pos.Line > value.Pos.Line {
			at := value.Pos
			at.Offset += len(value.Value)
			at.Column += len(value.Value)
			return &Problem{File: file, Game: n, Line: at.Line, Col: at.Column, Token: value.Value,
				Msg:    fmt.Sprintf(`missing "]" to close the [%s] tag; expected "]" after its value, on the same line`, name.Value),
				offset: at.Offset}
		}
		break
	}
	for _, t := range toks {
		if t.Type == tInvalid {
			return syntaxProblem(file, n, toks, invalid, participle.Errorf(t.Pos, "%s", invalid[t.Pos.Offset]))
		}
	}
	if t, msg, ok := balance(toks); !ok {
		return syntaxProblem(file, n, toks, invalid, participle.Errorf(t.Pos, "%s", msg))
	}
	return nil
}

// syntaxProblem turns a participle error into a located problem that names
// what was found and what was expected.
func syntaxProblem(file string, n int, toks []lexer.Token, invalid map[int]string, err error) *Problem {
	p := &Problem{File: file, Game: n, Msg: err.Error()}
	var at lexer.Token
	if pe, ok := err.(participle.Error); ok {
		pos := pe.Position()
		for _, t := range toks {
			if t.Pos.Offset == pos.Offset {
				at = t
				break
			}
		}
		at.Pos = pos
		p.Msg = pe.Message()
		if ue, ok := err.(*participle.UnexpectedTokenError); ok {
			at = ue.Unexpected
			p.Msg = "unexpected " + describe(at) + "; expected " + expectation(toks, at)
		}
	}
	if at.Type == tInvalid {
		p.Msg = invalid[at.Pos.Offset]
	}
	p.Line, p.Col, p.Token, p.offset = at.Pos.Line, at.Pos.Column, at.Value, at.Pos.Offset
	p.Ply = plyAt(toks, at.Pos.Offset)
	return p
}

// plyAt numbers the ply at offset as the checker would: plies of a
// variation replace the ply before it. A place in the tags is ply 0.
func plyAt(toks []lexer.Token, offset int) int {
	count := 0
	var stack []int
	inTag, movetext := false, false
	for i, t := range toks {
		if t.Pos.Offset >= offset {
			if inTag || !movetext && t.Type == tLBrack {
				return 0
			}
			break
		}
		switch t.Type {
		case tLBrack:
			inTag = true
		case tRBrack:
			inTag = false
		default:
			movetext = movetext || !inTag
		}
		switch {
		case t.Type == tWord && (i == 0 || toks[i-1].Type != tLBrack):
			count++
		case t.Type == tLParen:
			stack = append(stack, count)
			if i == 0 || toks[i-1].Type != tLParen {
				count = max(count-1, 0)
			}
		case t.Type == tRParen && len(stack) > 0:
			count = stack[len(stack)-1]
			stack = stack[:len(stack)-1]
		}
	}
	return count + 1
}

// balance finds the first unbalanced parenthesis of a game, which the
// grammar alone reports poorly.
func balance(toks []lexer.Token) (lexer.Token, string, bool) {
	depth := 0
	for _, t := range toks {
		switch t.Type {
		case tLParen:
			depth++
		case tRParen:
			if depth == 0 {
				return t, `unexpected ")"; expected a ply, comment or result ("(" opens a variation before ")" closes it)`, false
			}
			depth--
		case tResult, tEOF, tLBrack:
			if depth > 0 {
				return t, "unexpected " + describe(t) + `; expected a ply, comment or ")" to close the variation`, false
			}
		}
	}
	return lexer.Token{}, "", true
}

// expectation says what the grammar wanted instead of t, in words.
func expectation(toks []lexer.Token, t lexer.Token) string {
	depth, inTags := 0, true
	var prev lexer.Token
	for _, x := range toks {
		if x.Pos.Offset >= t.Pos.Offset && x.Type != tEOF || x.Type == tEOF && t.Type == tEOF && x.Pos == t.Pos {
			break
		}
		switch x.Type {
		case tLParen:
			depth++
			inTags = false
		case tRParen:
			depth--
		case tLBrack, tRBrack, tString:
		case tWord:
			if prev.Type != tLBrack {
				inTags = false
			}
		default:
			inTags = false
		}
		prev = x
	}
	switch {
	case prev.Type == tLBrack:
		return `a tag name, as in [Game "castles"]`
	case prev.Type == tWord && inTags && t.Type != tString:
		return `a quoted tag value, as in [Game "castles"]`
	case prev.Type == tString && inTags:
		return `"]" to close the tag`
	case depth > 0 && t.Type == tEOF:
		return `")" to close the variation, then a result`
	case depth > 0:
		return `a ply, comment or ")" to close the variation`
	case t.Type == tEOF:
		return "a result (1-0, 0-1, 1/2-1/2 or *) to end the game"
	case t.Type == tRParen:
		return `a ply, comment or result ("(" opens a variation before ")" closes it)`
	}
	return "a tag, ply, move number, comment, variation or result"
}

// build turns a parsed game into a Record, checking what the grammar does
// not: annotations and NAGs follow a ply, a move number precedes one.
func build(file string, n int, g *gGame) (*Record, *Problem) {
	r := &Record{File: file, Index: n, Pos: toPos(g.Pos)}
	for _, t := range g.Tags {
		v, err := unquote(t.Value)
		if err != nil {
			return nil, &Problem{File: file, Game: n, Line: t.Pos.Line, Col: t.Pos.Column, Token: t.Name, Msg: err.Error()}
		}
		r.Tags = append(r.Tags, Tag{Name: t.Name, Value: v, Pos: toPos(t.Pos)})
	}
	plies := 0
	main, p := buildLine(file, n, g.Body, &plies)
	if p != nil {
		return nil, p
	}
	r.Main = main
	r.Result, r.ResultPos = g.Result.Value, toPos(g.Result.Pos)
	return r, nil
}

func buildLine(file string, n int, body []*gElem, plies *int) (*Line, *Problem) {
	l := &Line{}
	var last *Ply
	var num *gElem
	problem := func(e *gElem, tok, format string, args ...any) *Problem {
		return &Problem{File: file, Game: n, Ply: *plies + 1, Line: e.Pos.Line, Col: e.Pos.Column, Token: tok, Msg: fmt.Sprintf(format, args...)}
	}
	for _, e := range body {
		if num != nil && e.Ply == "" && e.Comment == "" {
			return nil, problem(num, num.Number, "move number %s is not followed by a ply", num.Number)
		}
		switch {
		case e.Number != "":
			if num != nil {
				return nil, problem(e, e.Number, "move number %s follows move number %s; expected a ply", e.Number, num.Number)
			}
			num = e
		case e.Ply != "":
			*plies++
			last = &Ply{Text: e.Ply, Pos: toPos(e.Pos)}
			if num != nil {
				digits := strings.TrimRight(num.Number, ".")
				dots := len(num.Number) - len(digits)
				v, err := strconv.Atoi(digits)
				if err != nil || (dots != 1 && dots != 3) {
					return nil, problem(num, num.Number, "bad move number %s; expected N. or N...", num.Number)
				}
				last.HasNumber, last.Number, last.Continues = true, v, dots == 3
				last.NumberPos, last.NumberTok = toPos(num.Pos), num.Number
				num = nil
			}
			l.Plies = append(l.Plies, last)
		case e.Annot != "":
			if last == nil {
				return nil, problem(e, e.Annot, "annotation %s must follow a ply", e.Annot)
			}
			last.Annots = append(last.Annots, e.Annot)
		case e.NAG != "":
			if last == nil {
				return nil, problem(e, e.NAG, "NAG %s must follow a ply", e.NAG)
			}
			v, err := strconv.Atoi(e.NAG[1:])
			if err != nil || v > 255 {
				return nil, problem(e, e.NAG, "bad NAG %s; expected $0 to $255", e.NAG)
			}
			last.NAGs = append(last.NAGs, v)
		case e.Comment != "":
			c := commentText(e.Comment)
			if last == nil {
				l.Comments = append(l.Comments, c)
			} else {
				last.Comments = append(last.Comments, c)
			}
		case e.Variation != nil:
			if last == nil {
				return nil, problem(e, "(", "a variation must follow the ply it is an alternative to")
			}
			before := *plies
			*plies-- // the variation replaces the ply before it
			v, p := buildLine(file, n, e.Variation.Body, plies)
			if p != nil {
				return nil, p
			}
			*plies = before
			v.Pos = toPos(e.Pos)
			if len(v.Plies) == 0 {
				return nil, problem(e, "(", "empty variation; expected at least one ply")
			}
			last.Variations = append(last.Variations, v)
		}
	}
	if num != nil {
		return nil, problem(num, num.Number, "move number %s is not followed by a ply", num.Number)
	}
	return l, nil
}

func commentText(c string) string {
	if strings.HasPrefix(c, "{") {
		c = c[1 : len(c)-1]
	} else {
		c = c[1:]
	}
	return strings.Join(strings.Fields(c), " ")
}

// unquote reads a tag value: "..." with \" and \\ escapes only.
func unquote(s string) (string, error) {
	s = s[1 : len(s)-1]
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			if i >= len(s) || (s[i] != '"' && s[i] != '\\') {
				return "", fmt.Errorf(`bad escape in tag value; expected \" or \\`)
			}
		}
		b.WriteByte(s[i])
	}
	return b.String(), nil
}

// quote writes a tag value with \" and \\ escapes.
func quote(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}
