package notation

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// Bounds on what a record may hold, shared by every reader of records and
// plies. Each is checked before the work it bounds (the grammar, a codec's
// parse, the recursive reading of variations), so that a hostile file costs
// time and memory in proportion to its size, never more.
const (
	// MaxPly is the longest ply, in bytes, and the longest word of a
	// record (tag name, move number, result). The longest legal ply is a
	// castles turn of a castle step and five unit steps (36 bytes, which
	// selfplay reaches); plies of the other games stay under 20 bytes.
	MaxPly = 256
	// MaxText is the longest comment or tag value, in bytes.
	MaxText = 64 << 10
	// MaxDepth is the deepest nesting of variations.
	MaxDepth = 64
	// MaxGameTokens is the most tokens one game may have: 3 times the
	// longest random game seen (an 8-seat rpp game of 40,000 tokens), and a
	// bound on what the grammar costs per game (about 1.7 KB a token).
	MaxGameTokens = 1 << 17
)

// CheckPlyLength refuses a ply longer than MaxPly with a *SyntaxError.
// Every codec calls it before reading a ply.
func CheckPlyLength(text string) error {
	if len(text) > MaxPly {
		return Syntaxf(0, "ply of %d bytes is too long; expected at most %d bytes", len(text), MaxPly)
	}
	return nil
}

// Token types of the record lexer. The lexer is hand-written (a
// lexer.Definition) because record files are large and a runtime regexp
// lexer would dominate the checker's time; participle remains the grammar.
const (
	tEOF    lexer.TokenType = lexer.EOF
	tLBrack lexer.TokenType = -(iota + 1)
	tRBrack
	tLParen
	tRParen
	tString
	tComment
	tNumber // move number: 12. or 12...
	tNAG    // $12
	tAnnot  // ! ? !! ?? !? ?! + #
	tResult // 1-0 0-1 1/2-1/2 * or a ranking such as G>R=B
	tWord   // a ply, or a tag name
	tInvalid
)

var symbols = map[string]lexer.TokenType{
	"EOF": tEOF, "LBrack": tLBrack, "RBrack": tRBrack, "LParen": tLParen,
	"RParen": tRParen, "String": tString, "Comment": tComment, "Number": tNumber,
	"NAG": tNAG, "Annot": tAnnot, "Result": tResult, "Word": tWord, "Invalid": tInvalid,
}

// describe names a token for error messages.
func describe(t lexer.Token) string {
	switch t.Type {
	case tEOF:
		if t.Value == "[" {
			return `"[" (the next game's tags)`
		}
		return "end of file"
	case tComment:
		return "comment"
	case tString:
		return "string " + t.Value
	}
	return strconv.Quote(t.Value)
}

type definition struct{}

func (definition) Symbols() map[string]lexer.TokenType { return symbols }

func (definition) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	toks, _ := lexAll(filename, data)
	return &sliceLexer{toks: toks}, nil
}

// sliceLexer feeds participle already-lexed tokens.
type sliceLexer struct {
	toks []lexer.Token
	i    int
}

func (s *sliceLexer) Next() (lexer.Token, error) {
	if s.i >= len(s.toks) {
		// The last token is always EOF.
		return s.toks[len(s.toks)-1], nil
	}
	t := s.toks[s.i]
	s.i++
	return t, nil
}

// lexAll splits data into tokens, always ending with EOF. Bytes that start
// no token become tInvalid tokens; invalid maps each such token's offset to
// a message that says what was wrong.
func lexAll(filename string, data []byte) (toks []lexer.Token, invalid map[int]string) {
	l := newLexState(filename, data)
	for {
		t := l.token()
		toks = append(toks, t)
		if t.Type == tEOF {
			return toks, l.invalid
		}
	}
}

func newLexState(filename string, data []byte) *lexState {
	return &lexState{data: string(data), line: 1, col: 1, file: filename}
}

// newStreamLexer lexes what it reads from src, holding a window of it: the
// bytes of the tokens not yet handed out, and read-ahead. base is the offset
// of src's first byte in the file.
func newStreamLexer(filename string, src io.Reader, base int) *lexState {
	return &lexState{line: 1, col: 1, file: filename, src: src, base: base}
}

// readBlock is how much a stream lexer reads at a time.
const readBlock = 64 << 10

// more reads more input into the window, dropping what has been lexed;
// it returns false at the end of the input (or on a read error, kept in
// err). The window is a string that is never changed, so that token values
// are slices of it rather than copies; each read makes a new window of the
// unlexed rest and the new bytes. A token longer than a block is read in
// reads at least as long as what the window holds, so that its cost stays
// linear in its length.
func (l *lexState) more() bool {
	if l.src == nil || l.eof {
		return false
	}
	rest := len(l.data) - l.off
	need := 1
	if rest >= readBlock {
		need = rest
	}
	if len(l.buf) < max(readBlock, need) {
		l.buf = make([]byte, max(readBlock, 2*need))
	}
	n := 0
	var err error
	for n < need && err == nil {
		var k int
		k, err = l.src.Read(l.buf[n:])
		n += k
	}
	if n > 0 {
		var b strings.Builder
		b.Grow(rest + n)
		b.WriteString(l.data[l.off:])
		b.Write(l.buf[:n])
		l.data = b.String()
		l.base += l.off
		l.off = 0
	}
	if err != nil {
		l.eof = true
		if err != io.EOF {
			l.err = err
		}
	}
	return n > 0
}

// have reports whether the window holds n bytes from off, reading more as
// needed.
func (l *lexState) have(n int) bool {
	for len(l.data)-l.off < n {
		if !l.more() {
			return false
		}
	}
	return true
}

// scan returns the index (from off) of the first byte at or after from for
// which stop holds, reading more as needed, or -1 at the end of the input
// (the window then holds the rest of it).
func (l *lexState) scan(from int, stop func(byte) bool) int {
	for i := from; ; i++ {
		if l.off+i >= len(l.data) && !l.more() {
			return -1
		}
		if stop(l.data[l.off+i]) {
			return i
		}
	}
}

// rest is the number of bytes in the window from off.
func (l *lexState) rest() int { return len(l.data) - l.off }

// token returns the next token (EOF at the end, repeatedly).
func (l *lexState) token() lexer.Token { return *l.tokenRef() }

// tokenRef is token without the copy: the token it points to may change
// at the next call.
func (l *lexState) tokenRef() *lexer.Token {
	if l.qi == len(l.queue) {
		l.queue, l.qi = l.lex(l.queue[:0]), 0
	}
	t := &l.queue[l.qi]
	l.qi++
	return t
}

// lex appends the next tokens to toks: at least one, EOF at the end of
// the input (repeatedly).
func (l *lexState) lex(toks []lexer.Token) []lexer.Token {
	l.skipSpace()
	if l.off >= len(l.data) && !l.more() {
		return append(toks, lexer.Token{Type: tEOF, Pos: l.pos()})
	}
	return l.next(toks)
}

type lexState struct {
	data      string // the input, or a window of it (src)
	buf       []byte // read buffer (src)
	off       int    // into data
	base      int    // offset of data[0] in the file
	src       io.Reader
	eof       bool
	err       error // reading src
	line, col int
	file      string
	invalid   map[int]string
	queue     []lexer.Token // tokens lexed, handed out up to qi (reused)
	qi        int
	last      lexer.TokenType
	prev      lexer.TokenType // the type before last
	// wide: the word just measured by word has a byte outside ASCII.
	wide bool
	// typo counts the typographic characters read as what they stand for
	// (see typography.go).
	typo int
	// noBrace: no "}" follows off (so that a run of "{" costs one scan).
	noBrace bool
}

func (l *lexState) pos() lexer.Position {
	return lexer.Position{Filename: l.file, Offset: l.base + l.off, Line: l.line, Column: l.col}
}

// advance moves over n bytes, keeping line and column (columns count bytes).
func (l *lexState) advance(n int) {
	if strings.IndexByte(l.data[l.off:l.off+n], '\n') < 0 {
		l.col += n
		l.off += n
		return
	}
	for i := l.off; i < l.off+n; i++ {
		if l.data[i] == '\n' {
			l.line++
			l.col = 1
		} else {
			l.col++
		}
	}
	l.off += n
}

func (l *lexState) skipSpace() {
	for l.off < len(l.data) || l.more() {
		switch c := l.data[l.off]; c {
		case ' ', '\t', '\r', '\f', '\v':
			l.col++
			l.off++
		case '\n':
			l.line++
			l.col = 1
			l.off++
		default:
			if c < utf8.RuneSelf {
				return
			}
			n := l.spaceAt(0)
			if n == 0 {
				return
			}
			l.col += n
			l.off += n
			l.typo++
		}
	}
}

// spaceAt returns the length of the typographic space (typography.go) at
// off+i, or 0, reading more as needed.
func (l *lexState) spaceAt(i int) int {
	l.have(i + 3)
	return wideSpace(l.data[l.off+i:])
}

// Byte classes of word: a byte of a word, a special byte (one that ends a
// word), a byte outside ASCII (which may start a typographic space).
const (
	cWord = iota
	cSpecial
	cWide
)

// class holds each byte's class for word.
var class = func() (t [256]uint8) {
	for c := range 256 {
		switch c {
		case ' ', '\t', '\r', '\n', '\f', '\v', '[', ']', '(', ')', '{', '}', ';', '"', '$':
			t[c] = cSpecial
		}
		if c < 0x20 || c == 0x7f {
			t[c] = cSpecial
		}
		if c >= utf8.RuneSelf {
			t[c] = cWide
		}
	}
	return t
}()

func isSpecial(c byte) bool { return class[c] == cSpecial }

// word returns the length of the word at off: the bytes up to the next
// special byte or typographic space, reading more as needed (the rest of
// the input when none follows). It sets wide when the word has a byte
// outside ASCII.
func (l *lexState) word() int {
	l.wide = false
	for i := l.off; ; i++ {
		if i >= len(l.data) {
			n := i - l.off
			if !l.more() {
				return n
			}
			i = l.off + n
		}
		if k := class[l.data[i]]; k != cWord {
			n := i - l.off
			if k == cSpecial {
				return n
			}
			l.wide = true
			if l.spaceAt(n) > 0 {
				return n
			}
			i = l.off + n // spaceAt may have read more
		}
	}
}

// put appends a token of value v at off, filled in place: a token is
// large, and building it apart to copy it costs more than its fields.
func (l *lexState) put(toks []lexer.Token, typ lexer.TokenType, v string) []lexer.Token {
	if len(toks) == cap(toks) {
		toks = slices.Grow(toks, 1)
	}
	toks = toks[:len(toks)+1]
	fill(&toks[len(toks)-1], typ, v, l.file, l.base+l.off, l.line, l.col)
	l.prev, l.last = l.last, typ
	return toks
}

// fill sets every field of *t.
func fill(t *lexer.Token, typ lexer.TokenType, v, file string, off, line, col int) {
	t.Type, t.Value = typ, v
	t.Pos.Filename, t.Pos.Offset, t.Pos.Line, t.Pos.Column = file, off, line, col
}

// emit appends the token of the n bytes at off and moves over them.
func (l *lexState) emit(toks []lexer.Token, typ lexer.TokenType, n int) []lexer.Token {
	toks = l.put(toks, typ, l.data[l.off:l.off+n])
	if typ == tComment {
		l.advance(n)
	} else {
		// No other token spans a line break.
		l.col += n
		l.off += n
	}
	return toks
}

// emitAs is emit for a token whose value is not the n bytes it spans (a
// word or tag value read through typography.go).
func (l *lexState) emitAs(toks []lexer.Token, typ lexer.TokenType, n int, v string) []lexer.Token {
	toks = l.put(toks, typ, v)
	l.advance(n)
	return toks
}

// bad emits n bytes as a tInvalid token that says what was wrong. Its value
// keeps only what a problem line quotes (a 100 MB token must not be copied).
func (l *lexState) bad(toks []lexer.Token, n int, format string, args ...any) []lexer.Token {
	if l.invalid == nil {
		l.invalid = map[int]string{}
	}
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	l.invalid[l.base+l.off] = msg
	p := l.pos()
	v := strings.Clone(l.data[l.off : l.off+min(n, MaxToken+1)])
	l.advance(n)
	l.prev, l.last = l.last, tInvalid
	return append(toks, lexer.Token{Type: tInvalid, Value: v, Pos: p})
}

func (l *lexState) next(toks []lexer.Token) []lexer.Token {
	switch c := l.data[l.off]; c {
	case '[':
		if out, ok := l.tagLine(toks); ok {
			return out
		}
		return l.emit(toks, tLBrack, 1)
	case ']':
		return l.emit(toks, tRBrack, 1)
	case '(':
		return l.emit(toks, tLParen, 1)
	case ')':
		return l.emit(toks, tRParen, 1)
	case '{':
		end := -1
		if !l.noBrace {
			end = l.scan(1, func(b byte) bool { return b == '}' })
		}
		if end < 0 {
			l.noBrace = true
			return l.bad(toks, 1, `unterminated comment: "{" has no closing "}"`)
		}
		if end+1 > MaxText {
			return l.bad(toks, end+1, "comment of %d bytes is too long; expected at most %d bytes", end+1, MaxText)
		}
		return l.emit(toks, tComment, end+1)
	case '}':
		return l.bad(toks, 1, `unexpected "}" outside a comment`)
	case ';':
		end := l.scan(1, func(b byte) bool { return b == '\n' })
		if end < 0 {
			end = l.rest()
		}
		if end > MaxText {
			return l.bad(toks, end, "comment of %d bytes is too long; expected at most %d bytes", end, MaxText)
		}
		return l.emit(toks, tComment, end)
	case '"':
		return l.str(toks, 1)
	case '$':
		n := l.scan(1, func(b byte) bool { return b < '0' || b > '9' })
		if n < 0 {
			n = l.rest()
		}
		if n == 1 {
			return l.bad(toks, 1, `"$" must be followed by digits (a NAG such as $12)`)
		}
		if n > MaxPly {
			return l.bad(toks, n, "NAG of %d bytes is too long; expected $0 to $255", n)
		}
		return l.emit(toks, tNAG, n)
	default:
		if c < 0x20 || c == 0x7f {
			return l.bad(toks, 1, "unexpected control byte %#02x", c)
		}
		// A tag value between curly quotes: [Event “Autumn Cup”].
		if c >= utf8.RuneSelf && l.last == tWord && l.prev == tLBrack && l.have(3) && curlyQuote(l.data[l.off:]) {
			return l.str(toks, 3)
		}
	}
	// A word: everything up to the next special byte.
	n := l.word()
	if n > MaxPly {
		if l.last == tLBrack {
			return l.bad(toks, n, "tag name of %d bytes is too long; expected at most %d bytes", n, MaxPly)
		}
		return l.bad(toks, n, "word of %d bytes is too long; expected a ply of at most %d bytes", n, MaxPly)
	}
	w := l.data[l.off : l.off+n]
	// A leading move number: 12. or 12... possibly glued to a ply (1.e4).
	if digits := leadingDigits(w); digits > 0 && digits < n && w[digits] == '.' {
		m := digits
		for m < n && w[m] == '.' {
			m++
		}
		return l.emit(toks, tNumber, m)
	}
	if l.wide {
		if f, k := fold(w); k > 0 {
			return l.folded(toks, w, f, k)
		}
	}
	if isResult(w) {
		return l.emit(toks, tResult, n)
	}
	// Trailing annotations split off the ply: Qa1-d4!? -> Qa1-d4 !?
	a := n
	for a > 0 && isAnnotByte(w[a-1]) {
		a--
	}
	if a > 0 {
		toks = l.emit(toks, tWord, a)
	}
	for a < n {
		k := annotLen(w[a:n])
		toks = l.emit(toks, tAnnot, k)
		a += k
	}
	return toks
}

// str lexes a tag value that opens with a quote of open bytes (" or a
// curly quote) and closes with " or a curly quote on the same line. A
// value with a curly quote gets the value it would have between straight
// quotes.
func (l *lexState) str(toks []lexer.Token, open int) []lexer.Token {
	curly := open > 1
	for i := open; l.have(i + 1); i++ {
		c := l.data[l.off+i]
		end := 0
		switch {
		case c == '\\':
			i++
		case c == '"':
			end = 1
		case c == '\n':
			return l.bad(toks, i, `unterminated string: a tag value ends with '"' on its line`)
		case c >= utf8.RuneSelf && l.have(i+3) && curlyQuote(l.data[l.off+i:]):
			end, curly = 3, true
		}
		if end == 0 {
			continue
		}
		n := i + end
		if n > MaxText {
			return l.bad(toks, n, "tag value of %d bytes is too long; expected at most %d bytes", n, MaxText)
		}
		if !curly {
			return l.emit(toks, tString, n)
		}
		if open > 1 {
			l.typo++
		}
		if end > 1 {
			l.typo++
		}
		return l.emitAs(toks, tString, n, `"`+l.data[l.off+open:l.off+i]+`"`)
	}
	return l.bad(toks, l.rest(), `unterminated string: a tag value ends with '"' on its line`)
}

// folded emits a word w that reads as f after typography.go (k characters
// read so): a result, or a ply and the annotations that follow it.
func (l *lexState) folded(toks []lexer.Token, w, f string, k int) []lexer.Token {
	l.typo += k
	if isResult(f) {
		return l.emitAs(toks, tResult, len(w), f)
	}
	// Annotations are ASCII: they end w and f alike.
	a := len(w)
	for a > 0 && isAnnotByte(w[a-1]) {
		a--
	}
	if a > 0 {
		toks = l.emitAs(toks, tWord, a, f[:len(f)-(len(w)-a)])
	}
	for a < len(w) {
		n := annotLen(w[a:])
		toks = l.emit(toks, tAnnot, n)
		a += n
	}
	return toks
}

// tagFast turns tagLine on (tests compare the lexer with it off).
var tagFast = true

// tagLine lexes a tag pair of the plain shape, [Name "Value"] with a name
// of letters, digits and _ that starts with a letter, one space, and a
// value of no backslash and no line break, all in the window: the four
// tokens the general path makes of it, in one step. It reports false,
// having read nothing, for anything else.
func (l *lexState) tagLine(toks []lexer.Token) ([]lexer.Token, bool) {
	d := l.data[l.off:]
	i := 1
	for i < len(d) && i <= MaxPly && (d[i]|0x20 >= 'a' && d[i]|0x20 <= 'z' || i > 1 && (d[i] >= '0' && d[i] <= '9' || d[i] == '_')) {
		i++
	}
	name := i - 1
	if !tagFast || name == 0 || name > MaxPly || i+1 >= len(d) || d[i] != ' ' || d[i+1] != '"' {
		return toks, false
	}
	v := i + 1 // the value's opening quote
	j := v + 1
	for j < len(d) && d[j] != '"' && d[j] != '\\' && d[j] != '\n' {
		j++
	}
	if j+1 >= len(d) || d[j] != '"' || d[j+1] != ']' || j+1-v > MaxText {
		return toks, false
	}
	// The tokens are filled in place (see put).
	k := len(toks)
	toks = slices.Grow(toks, 4)[:k+4]
	off, col := l.base+l.off, l.col
	fill(&toks[k], tLBrack, d[:1], l.file, off, l.line, col)
	fill(&toks[k+1], tWord, d[1:i], l.file, off+1, l.line, col+1)
	fill(&toks[k+2], tString, d[v:j+1], l.file, off+v, l.line, col+v)
	fill(&toks[k+3], tRBrack, d[j+1:j+2], l.file, off+j+1, l.line, col+j+1)
	l.off += j + 2
	l.col += j + 2
	l.prev, l.last = tString, tRBrack
	return toks, true
}

func leadingDigits(w string) int {
	n := 0
	for n < len(w) && w[n] >= '0' && w[n] <= '9' {
		n++
	}
	return n
}

func isAnnotByte(c byte) bool { return c == '!' || c == '?' || c == '+' || c == '#' }

func annotLen(w string) int {
	if len(w) >= 2 && (w[0] == '!' || w[0] == '?') && (w[1] == '!' || w[1] == '?') {
		return 2
	}
	return 1
}

// isResult reports a result token: 1-0 0-1 1/2-1/2 * or a ranking of side
// letters joined by > and = (G>R=B).
func isResult(w string) bool {
	switch w {
	case "1-0", "0-1", "1/2-1/2", "*":
		return true
	}
	if len(w) < 3 || len(w)%2 == 0 {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if i%2 == 0 {
			if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
				return false
			}
		} else if c != '>' && c != '=' {
			return false
		}
	}
	return true
}
