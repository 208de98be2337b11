// Package castles reads and writes the plies of Combat Castles
// (NOTATION.md): `Ca1-b2,a2xb3,@c1` (the castle step, then unit steps,
// then placements), `Cc4xb3` (the castle rams an enemy unit), `d3xd4` (a
// unit enters the enemy castle), `@c3` (Second's setup placement).
package castles

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"pbem/engine"
	"pbem/engine/castles"
	"pbem/notation"
)

// plyAST is the grammar of one ply:
//
//	ply    = action { "," action }
//	action = "@" square                        placement (or the setup)
//	       | [ "C" ] square ( "-" | "x" ) square  castle or unit step
//	square = letter digits                     (either case; checked later)
//
// Blanks between tokens are ignored. Which step is the castle's is decided
// by the position (the letter C may be left out).
type plyAST struct {
	Actions []*actionAST `parser:"@@ ( Comma @@ )*"`
}

type actionAST struct {
	Place *placeAST `parser:"  @@"`
	Step  *stepAST  `parser:"| @@"`
}

type placeAST struct {
	At string `parser:"At @Square"`
}

type stepAST struct {
	Castle string `parser:"@Castle?"`
	From   string `parser:"@Square"`
	Sep    string `parser:"@Sep"`
	To     string `parser:"@Square"`
}

var parser = participle.MustBuild[plyAST](participle.Lexer(plyLexer{}))

// actionParser reads one action of a ply. Plies of many actions rarely
// repeat, but their actions do (a 4x4 board has a few hundred), so Decode
// parses and caches a ply action by action and falls back to the whole-ply
// grammar only to explain a syntax error.
var actionParser = participle.MustBuild[actionAST](participle.Lexer(plyLexer{}))

// action is one parsed action, independent of any position. Squares off
// the board are noSquare and keep their text for the error.
type action struct {
	kind     byte // 'C' castle step (letter written), 's' step, '@' placement
	from, to castles.Square
	// offText is the text (lower case) of the first of from and to that
	// is noSquare, for the error; the squares on the board are named by
	// their canonical text, which is what was written, lower-cased.
	offText string
	capture bool // written with x
}

const noSquare castles.Square = -1

// setSquares sets the squares of a, read from the texts given.
func (a *action) setSquares(from castles.Square, fromText string, to castles.Square, toText string) {
	a.from, a.to, a.offText = from, to, ""
	switch {
	case from == noSquare:
		a.offText = fromText
	case to == noSquare:
		a.offText = toText
	}
}

// Codec is the castles notation. It is safe for concurrent use.
type Codec struct {
	// actions holds parsed actions by text. Whole plies are not cached:
	// a turn combines several actions, so most plies of a collection are
	// new while their actions are few.
	actions notation.Cache[action]
}

var _ notation.Codec = (*Codec)(nil)

// New returns a codec.
func New() *Codec { return &Codec{} }

// Rules is castles.
func (c *Codec) Rules() engine.Rules { return castles.Rules{} }

// parse returns the actions of text, each from the cache when it was seen.
func (c *Codec) parse(text string) ([]action, error) { return c.parseActions(text) }

// maxActions is the most actions of a legal turn (a castle step and five
// unit steps or placements); Decode reads that many without allocating.
const maxActions = 8

// parseActions reads a ply action by action through the action cache.
func (c *Codec) parseActions(text string) ([]action, error) {
	return c.parseActionsTo(make([]action, 0, strings.Count(text, ",")+1), text)
}

// parseActionsTo is parseActions, appending to acts.
func (c *Codec) parseActionsTo(acts []action, text string) ([]action, error) {
	n := len(acts)
	if out, ok := fastPly(acts, text); ok {
		return out, nil
	}
	acts = acts[:n]
	for rest, more := text, true; more; {
		var part string
		part, rest, more = strings.Cut(rest, ",")
		if a, ok := fastAction(part); ok {
			acts = append(acts, a)
			continue
		}
		a, err := c.actions.Get(part, parseAction)
		if err != nil {
			return parse(text) // the whole ply, for an error located in it
		}
		acts = append(acts, a)
	}
	return acts, nil
}

// fastPly reads, in one pass, a ply whose every action has the plain
// shape (`@c1`, `Ca1-b2`, `a2xb3`) with squares on the board, written in
// lower case: the actions fastAction reads from each part. It reports
// false for anything else (the caller then reads the ply part by part);
// acts may then hold some of the actions.
func fastPly(acts []action, text string) ([]action, bool) {
	for i := 0; ; i++ {
		var a action
		if i < len(text) && text[i] == '@' {
			q, ok := boardSquare(text, i+1)
			if !ok {
				return acts, false
			}
			a = action{kind: '@', from: q, to: q}
			i += 3
		} else {
			a.kind = 's'
			if i < len(text) && text[i] == 'C' {
				a.kind = 'C'
				i++
			}
			from, ok := boardSquare(text, i)
			if !ok || i+2 >= len(text) || text[i+2] != '-' && text[i+2] != 'x' {
				return acts, false
			}
			to, ok := boardSquare(text, i+3)
			if !ok {
				return acts, false
			}
			a.from, a.to = from, to
			a.capture = text[i+2] == 'x'
			i += 5
		}
		acts = append(acts, a)
		if i == len(text) {
			return acts, true
		}
		if text[i] != ',' {
			return acts, false
		}
	}
}

// boardSquare reads the square at text[i:] when it is one of the board's
// in lower case (a letter a-d and a digit 1-4, no digit after them).
func boardSquare(text string, i int) (castles.Square, bool) {
	if i+1 >= len(text) {
		return noSquare, false
	}
	f, r := text[i], text[i+1]
	if f < 'a' || f > 'd' || r < '1' || r > '4' || i+2 < len(text) && isDigit(text[i+2]) {
		return noSquare, false
	}
	return castles.Sq(int(f-'a'), int(r-'1')), true
}

// fastAction reads an action of the plain shape (`@c1`, `Ca1-b2`,
// `a2xb3`: squares of a lower-case letter and digits, no blanks) as the
// grammar would read it (FuzzSplitMatchesGrammar keeps the two equal); it
// reports false, leaving the rest to the cache and the grammar, for
// anything else.
func fastAction(text string) (action, bool) {
	if len(text) > 0 && text[0] == '@' {
		if notation.SquareEnd(text, 1) != len(text) {
			return action{}, false
		}
		var a action
		a.kind = '@'
		q, t := lowerSquare(text[1:])
		a.setSquares(q, t, q, t)
		return a, true
	}
	a := action{kind: 's'}
	i := 0
	if len(text) > 0 && text[0] == 'C' {
		a.kind, i = 'C', 1
	}
	j := notation.SquareEnd(text, i)
	if j < 0 || j >= len(text) || text[j] != '-' && text[j] != 'x' {
		return action{}, false
	}
	k := notation.SquareEnd(text, j+1)
	if k != len(text) {
		return action{}, false
	}
	from, fromText := lowerSquare(text[i:j])
	to, toText := lowerSquare(text[j+1 : k])
	a.setSquares(from, fromText, to, toText)
	a.capture = text[j] == 'x'
	return a, true
}

// lowerSquare is toSquare for a token already in lower case (notation.SquareEnd's).
func lowerSquare(t string) (castles.Square, string) {
	q, ok := castles.ParseSquare(t)
	if !ok {
		return noSquare, shorten(t)
	}
	return q, t
}

func parseAction(text string) (action, error) {
	ast, err := actionParser.ParseString("", text)
	if err != nil {
		return action{}, err
	}
	return toAction(ast), nil
}

func parse(text string) ([]action, error) {
	ast, err := parser.ParseString("", text)
	if err != nil {
		return nil, syntaxError(text, err)
	}
	acts := make([]action, len(ast.Actions))
	for i, a := range ast.Actions {
		acts[i] = toAction(a)
	}
	return acts, nil
}

func toAction(a *actionAST) action {
	var act action
	if a.Place != nil {
		act.kind = '@'
		q, t := toSquare(a.Place.At)
		act.setSquares(q, t, q, t)
		return act
	}
	st := a.Step
	act.kind = 's'
	if st.Castle != "" {
		act.kind = 'C'
	}
	from, fromText := toSquare(st.From)
	to, toText := toSquare(st.To)
	act.setSquares(from, fromText, to, toText)
	act.capture = st.Sep != "-"
	return act
}

// toSquare reads a square token: noSquare when it names no cell.
func toSquare(t string) (castles.Square, string) {
	t = strings.ToLower(t)
	q, ok := castles.ParseSquare(t)
	if !ok {
		return noSquare, shorten(t)
	}
	return q, t
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

// Expectations named in syntax errors.
const (
	expAction = "an action such as Ca1-b2, a2xb3 or @c1"
	expSquare = "a square such as c4"
	expSep    = `"-" or "x"`
	expNext   = `"," or the end of the ply`
)

// syntaxError turns a failed parse of text into a *notation.SyntaxError
// that says what was found and what was expected. It walks the tokens
// through the grammar's states (the grammar is LL(1)) to find the first
// token that does not fit.
func syntaxError(text string, perr error) error {
	l := &plyTokens{s: text}
	state := 0
	for {
		tok, _ := l.Next()
		next, exp := -1, ""
		switch state {
		case 0:
			switch tok.Type {
			case tAt:
				next = 1
			case tCastle:
				next = 2
			case tSquare:
				next = 3
			}
			exp = expAction
		case 1, 4:
			if tok.Type == tSquare {
				next = 5
			}
			exp = expSquare
		case 2:
			if tok.Type == tSquare {
				next = 3
			}
			exp = expSquare
		case 3:
			if tok.Type == tSep {
				next = 4
			}
			exp = expSep
		case 5:
			switch {
			case tok.Type == tComma:
				next = 0
			case tok.EOF():
				next = 6
			}
			exp = expNext
		}
		if next < 0 {
			found := "end of ply"
			if !tok.EOF() {
				found = strconv.Quote(shorten(tok.Value))
			}
			off := tok.Pos.Offset
			col := utf8.RuneCountInString(text[:off]) + 1
			return notation.Syntaxf(off, "unexpected %s at column %d; expected %s", found, col, exp)
		}
		if next == 6 {
			break
		}
		state = next
	}
	// Not reached while the states above follow the grammar.
	var pe participle.Error
	if errors.As(perr, &pe) {
		return notation.Syntaxf(pe.Position().Offset, "%s", pe.Message())
	}
	return notation.Syntaxf(0, "%v", perr)
}

var _ lexer.Definition = plyLexer{}

// The rule Decode names beyond the engine's own.
const ErrNoCapture = "x asserts a capture, but %s captures nothing"

// Decode reads one ply as a player wrote it and resolves it against s,
// playing its actions one by one through the engine's Turn (whose
// per-action generators decide legality).
func (c *Codec) Decode(es engine.State, text string) (engine.Move, error) {
	m, _, err := c.DecodePlay(es, text)
	return m, err
}

var _ notation.Resolver = (*Codec)(nil)

// DecodePlay is Decode that also returns the position the move leads to
// (notation.Resolver): Decode plays the actions through a Turn anyway. The
// position is returned when the actions were written in the order Play
// plays them (a setup's one placement; else the castle's step, then the
// units' steps, then the placements), and is nil otherwise.
func (c *Codec) DecodePlay(es engine.State, text string) (engine.Move, engine.State, error) {
	if err := notation.CheckPlyLength(text); err != nil {
		return nil, nil, err
	}
	var buf [maxActions]action
	acts, err := c.parseActionsTo(buf[:0], text)
	if err != nil {
		return nil, nil, err
	}
	s, ok := es.(*castles.State)
	if !ok {
		return nil, nil, fmt.Errorf("castles: not a castles position: %T", es)
	}
	t, err := s.Begin()
	if err != nil {
		return nil, nil, err
	}
	m := castles.Move{Setup: s.InSetup()}
	// The unit steps and placements, gathered here and copied into the
	// move at the end (the move of a common turn is interned instead).
	var stepBuf [maxActions]castles.Step
	var placeBuf [maxActions]castles.Square
	steps, places := stepBuf[:0], placeBuf[:0]
	castled := false
	// inOrder: the actions so far are in Play's order (phase 0: nothing
	// yet, 1: the castle stepped, 2: units stepped, 3: units placed).
	inOrder, phase := true, 0
	for i, a := range acts {
		if a.from == noSquare {
			return nil, nil, engine.Illegal("no such square %s", a.offText)
		}
		if a.to == noSquare {
			return nil, nil, engine.Illegal("no such square %s", a.offText)
		}
		var capture, castle bool
		switch {
		case a.kind == '@':
			err = t.Place(a.to)
			places = append(places, a.to)
			phase = 3
		case a.kind == 'C' || a.from == t.Castle():
			capture, err = t.CastleStep(a.from, a.to)
			castle = true
			m.Castle = [2]castles.Square{a.from, a.to}
			castled = true
			inOrder = inOrder && i == 0
			phase = 1
		default:
			capture, err = t.Step(a.from, a.to)
			steps = append(steps, castles.Step{From: a.from, To: a.to})
			inOrder = inOrder && phase >= 1 && phase <= 2
			phase = 2
		}
		if err != nil {
			return nil, nil, err
		}
		if a.capture && !capture {
			return nil, nil, engine.Illegal(ErrNoCapture, actionText(a, castle))
		}
	}
	if m.Setup {
		inOrder = len(acts) == 1 && len(places) == 1
	} else {
		inOrder = inOrder && phase >= 1
	}
	if !inOrder {
		return moveOf(nil, m, castled, steps, places), nil, nil
	}
	// The position and the move's steps and placements are allocated
	// together (the move of a turn with no step and at most one placement
	// is interned).
	var room *turnRoom
	var next *castles.State
	if len(steps) == 0 && len(places) <= 1 {
		next, err = t.End()
	} else {
		room = new(turnRoom)
		next, err = t.EndIn(&room.next)
	}
	if err != nil {
		return moveOf(nil, m, castled, steps, places), nil, nil // Apply says what is missing
	}
	return moveOf(room, m, castled, steps, places), next, nil
}

// turnRoom holds a turn's position and the steps and placements of its
// move in one allocation.
type turnRoom struct {
	next   castles.State
	steps  [castles.Units]castles.Step
	places [castles.Units]castles.Square
}

// moveOf is m with its unit steps and placements (nil when none) as an
// engine.Move: the move of a common turn (the setup placement, a castle
// step alone or followed by one placement) is the one interned for it;
// the others' steps and placements are copied to room when it is not nil
// and they fit, else allocated.
func moveOf(room *turnRoom, m castles.Move, castled bool, steps []castles.Step, places []castles.Square) engine.Move {
	var slot *atomic.Pointer[engine.Move]
	switch {
	case m.Setup && !castled && len(steps) == 0 && len(places) == 1:
		slot = &setupMoves[places[0]]
	case !m.Setup && castled && len(steps) == 0 && len(places) <= 1:
		extra := 0 // the castle step alone
		if len(places) == 1 {
			extra = 1 + int(places[0])
		}
		slot = &turnMoves[int(m.Castle[0])*castles.Cells+int(m.Castle[1])][extra]
	}
	if slot != nil {
		if em := slot.Load(); em != nil {
			return *em
		}
	}
	switch {
	case len(steps) == 0:
	case room != nil && len(steps) <= len(room.steps):
		m.Steps = room.steps[:copy(room.steps[:], steps)]
	default:
		m.Steps = slices.Clone(steps)
	}
	switch {
	case len(places) == 0:
	case room != nil && len(places) <= len(room.places):
		m.Places = room.places[:copy(room.places[:], places)]
	default:
		m.Places = slices.Clone(places)
	}
	em := engine.Move(m)
	if slot != nil {
		p := new(engine.Move)
		*p = em
		slot.Store(p)
	}
	return em
}

// setupMoves and turnMoves hold the moves of the commonest turns once
// they have been decoded, so that decoding them again allocates no move
// (about a quarter of the turns of a long game are one of these):
// setupMoves by the square placed on, turnMoves by the castle's step
// (from, to), then nothing (0) or a placement (1 + square). A move is
// never changed once made, so that the same one may serve every game.
var (
	setupMoves [castles.Cells]atomic.Pointer[engine.Move]
	turnMoves  [castles.Cells * castles.Cells][1 + castles.Cells]atomic.Pointer[engine.Move]
)

// actionText writes a step that captures nothing in canonical form.
func actionText(a action, castle bool) string {
	prefix := ""
	if castle {
		prefix = "C"
	}
	return prefix + a.from.String() + "-" + a.to.String()
}

// Encode writes m in its canonical form: the castle step with its letter
// C, then the unit steps, then the placements, joined by commas; x marks a
// capture (a castle ramming an enemy unit, a unit destroying an enemy unit
// or entering the enemy castle), - every other step.
func (c *Codec) Encode(es engine.State, em engine.Move) string {
	s := es.(*castles.State)
	m := em.(castles.Move)
	out := make([]byte, 0, 6+6*len(m.Steps)+4*len(m.Places))
	if m.Setup {
		for i, q := range m.Places {
			if i > 0 {
				out = append(out, ',')
			}
			out = appendSquare(append(out, '@'), q)
		}
		return string(out)
	}
	t, _ := s.Begin()
	capture, _ := t.CastleStep(m.Castle[0], m.Castle[1])
	out = appendStep(append(out, 'C'), m.Castle[0], m.Castle[1], capture)
	for _, st := range m.Steps {
		capture, _ := t.Step(st.From, st.To)
		out = appendStep(append(out, ','), st.From, st.To, capture)
	}
	for _, q := range m.Places {
		out = appendSquare(append(out, ',', '@'), q)
	}
	return string(out)
}

func appendStep(out []byte, from, to castles.Square, capture bool) []byte {
	out = appendSquare(out, from)
	if capture {
		out = append(out, 'x')
	} else {
		out = append(out, '-')
	}
	return appendSquare(out, to)
}

// appendSquare writes q as "c4" (a square off the board as String does).
func appendSquare(out []byte, q castles.Square) []byte {
	if !q.Valid() {
		return append(out, q.String()...)
	}
	return append(out, byte('a'+q.File()), byte('1'+q.Rank()))
}

// Notation explains the notation.
func (c *Codec) Notation() string { return help }

const help = `castles moves

A turn is its actions joined by commas, in the order played: the
castle step first, then any unit steps, then any placements.
  Ca1-b2,a2xb3,@c1  the castle steps a1 to b2, the unit on a2
                    destroys the enemy unit on b3, a unit from the
                    supply is placed on c1
  Cc4xb3            the castle rams the enemy unit on b3 (the enemy
                    scores a point)
  Cb2-c3            the castle steps onto an own unit (back to supply)
  Cd3-c3,d3xd4      the castle steps, then a unit enters the enemy
                    castle on d4 and scores
  @c3               Second's setup placement (the first ply)
C is the castle; units have no letter. x marks a capture: a castle
ramming an enemy unit, a unit destroying an enemy unit or entering the
enemy castle; - is every other step. The scrap heap to supply transfer
at the start of a turn is automatic and not written.

Input is lenient: any case (ca1-B2), the letter C may be left out
(the square decides), - is accepted for a capture, and blanks may
follow the commas. x on a step that captures nothing is an error, as
is any action after the third point ends the game. The referee always
writes the canonical form.`
