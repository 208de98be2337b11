package notation

import (
	"fmt"

	"pbem/engine"
)

// Codec reads and writes the plies of one game. Each notation/<game>
// package provides one; the referee's catalog lists them.
type Codec interface {
	// Rules is the game the codec writes.
	Rules() engine.Rules
	// Decode reads one ply as a player wrote it (lenient: case, optional
	// piece letters, `-` for a capture, spaces after commas) and resolves it
	// against s. Text that is not a ply gets a *SyntaxError; a ply that
	// cannot be played in s gets an error wrapping engine.ErrIllegalMove
	// that names the rule (e.g. "illegal: no such square j9"). A returned
	// move may still be refused by s.Apply.
	Decode(s engine.State, text string) (engine.Move, error)
	// Encode writes m, a legal move in s, in its one canonical spelling.
	Encode(s engine.State, m engine.Move) string
	// Notation explains the move notation with examples, in plain text of
	// at most 72 columns per line (for `help GAME` and the README).
	Notation() string
}

// A Resolver is a Codec whose decoding plays the ply's actions through the
// engine on its way (a turn of several actions): DecodePlay is Decode that
// also returns the position the move leads to, so that the caller need not
// play the turn a second time. next is exactly what s.Apply(m) returns, or
// nil when the codec did not reach it (the caller then applies m).
type Resolver interface {
	DecodePlay(s engine.State, text string) (m engine.Move, next engine.State, err error)
}

// SyntaxError reports text that does not follow a grammar: where (a byte
// offset into the text that was parsed) and what was expected.
type SyntaxError struct {
	Offset int
	Msg    string // e.g. `unexpected "?"; expected a square such as c4`
}

func (e *SyntaxError) Error() string { return e.Msg }

// Syntaxf returns a *SyntaxError at offset.
func Syntaxf(offset int, format string, args ...any) *SyntaxError {
	return &SyntaxError{Offset: offset, Msg: fmt.Sprintf(format, args...)}
}

// SquareEnd returns where a square of the plain shape written at text[i]
// ends (a lower-case letter, then digits), or -1: the fast ply readers of
// the games with such squares share it.
func SquareEnd(text string, i int) int {
	if i < 0 || i+1 >= len(text) || text[i] < 'a' || text[i] > 'z' || text[i+1] < '0' || text[i+1] > '9' {
		return -1
	}
	j := i + 2
	for j < len(text) && text[j] >= '0' && text[j] <= '9' {
		j++
	}
	return j
}
