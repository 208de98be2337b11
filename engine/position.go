package engine

import (
	"fmt"
	"strings"
)

// Positioner is implemented by states that write their position as text:
// one line, in the game's position notation (docs/NOTATION.md,
// "Positions"), holding everything the rules need to go on from it (board,
// reserves, piles, side to move, passes in a row) but not the repetition
// history. Equal positions write equal text: the text is canonical.
type Positioner interface {
	Position() string
}

// PositionReader is implemented by the rules of games whose positions can
// be read back from their text. ParsePosition returns the position the
// text describes, for the options o (a game whose text names its board or
// seats refuses options that disagree). Text that is malformed or that
// breaks the rules' invariants gets a *PositionError.
type PositionReader interface {
	ParsePosition(o Options, text string) (State, error)
}

// PositionError reports position text that could not be read: what is
// wrong, the 1-based byte column where it is (0: the text as a whole) and
// what was expected there.
type PositionError struct {
	// Game is the game id, e.g. "castles".
	Game string
	// Col is the 1-based byte column of the offending text; 0 when the
	// text is well formed but the position it describes is not legal.
	Col int
	// Msg says what is wrong.
	Msg string
	// Want says what was expected ("" when Msg says it all).
	Want string
}

func (e *PositionError) Error() string {
	var b strings.Builder
	b.WriteString(e.Game)
	b.WriteString(" position")
	if e.Col > 0 {
		fmt.Fprintf(&b, ", column %d", e.Col)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Want != "" {
		b.WriteString("; want ")
		b.WriteString(e.Want)
	}
	return b.String()
}

// PositionKey is the canonical 64-bit key of a position text: the 64-bit
// FNV-1a hash of its bytes. It is stable across runs and builds (the
// archive stores it), and equal texts have equal keys.
func PositionKey(text string) uint64 {
	const (
		offset = 0xcbf29ce484222325
		prime  = 0x100000001b3
	)
	h := uint64(offset)
	for i := 0; i < len(text); i++ {
		h ^= uint64(text[i])
		h *= prime
	}
	return h
}

// Position returns the position text of s and its key; ok is false when s
// has no position notation.
func Position(s State) (text string, key uint64, ok bool) {
	p, isP := s.(Positioner)
	if !isP {
		return "", 0, false
	}
	text = p.Position()
	return text, PositionKey(text), true
}

// ParsePosition reads a position of the game of r; an error when the game
// has no position notation.
func ParsePosition(r Rules, o Options, text string) (State, error) {
	pr, ok := r.(PositionReader)
	if !ok {
		return nil, fmt.Errorf("engine: %s has no position notation", r.ID())
	}
	return pr.ParsePosition(o, text)
}

// PositionField is one blank-separated field of a position text with the
// 1-based byte column where it starts.
type PositionField struct {
	Text string
	Col  int
}

// SplitPosition splits a position text of game into its blank-separated
// fields and checks that there is one per name in names (the fields the
// game's notation has, in order); the error names the fields expected.
func SplitPosition(game, text string, names ...string) ([]PositionField, error) {
	var fs []PositionField
	for i := 0; i < len(text); {
		if text[i] == ' ' || text[i] == '\t' {
			i++
			continue
		}
		j := i
		for j < len(text) && text[j] != ' ' && text[j] != '\t' {
			j++
		}
		fs = append(fs, PositionField{Text: text[i:j], Col: i + 1})
		i = j
	}
	want := fmt.Sprintf("%d fields separated by blanks: %s", len(names), strings.Join(names, ", "))
	switch {
	case len(fs) == 0:
		return nil, &PositionError{Game: game, Col: 1, Msg: "empty text", Want: want}
	case len(fs) < len(names):
		return nil, &PositionError{Game: game, Col: len(text) + 1, Msg: fmt.Sprintf("the text ends after %d fields, without the %s", len(fs), names[len(fs)]), Want: want}
	case len(fs) > len(names):
		f := fs[len(names)]
		return nil, &PositionError{Game: game, Col: f.Col, Msg: fmt.Sprintf("extra field %q", f.Text), Want: want}
	}
	return fs, nil
}

// Errorf returns a *PositionError at column off (0-based) of the field,
// with what was expected and what is wrong.
func (f PositionField) Errorf(game string, off int, want, format string, args ...any) error {
	return &PositionError{Game: game, Col: f.Col + off, Msg: fmt.Sprintf(format, args...), Want: want}
}
