// Package engine is the game-agnostic contract every game implements: immutable
// states, legal-move generation as the single source of truth for legality,
// outcomes, position keys for repetition and ASCII rendering.
//
// The package uses the standard library only and does no I/O: no time, no
// globals that change, no logging. Text never reaches the engine; notation
// turns text into typed moves and back.
package engine

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// ErrIllegalMove is matched (with errors.Is) by every error that rejects a
// move on the rules.
var ErrIllegalMove = errors.New("illegal move")

// IllegalError rejects a move and names the rule it breaks. Its text is the
// message users see, e.g. "illegal: Keeps never capture".
type IllegalError struct {
	Rule string
}

func (e *IllegalError) Error() string { return "illegal: " + e.Rule }

// Is makes errors.Is(err, ErrIllegalMove) true for every IllegalError.
func (e *IllegalError) Is(target error) bool { return target == ErrIllegalMove }

// Illegal returns an *IllegalError whose rule is the formatted text.
func Illegal(format string, args ...any) error {
	return &IllegalError{Rule: fmt.Sprintf(format, args...)}
}

// Options select a variant of a game. The zero value means the game's
// defaults.
type Options struct {
	// Players is the number of seats (rpp); 0 means the game's default.
	Players int
	// Board names the board (rpp); "" means the default for Players.
	Board string
	// First is the index (into Sides) of the side that opens each round.
	First int
}

// Rules describes one game and starts it.
type Rules interface {
	// ID is the game id used in [Game "..."] tags and commands, e.g. "castles".
	ID() string
	// Summary is a one-line description for `pbem games`.
	Summary() string
	// Help is a plain-text, link-free summary of the rules (at most 72
	// columns per line) for the referee's `help GAME`.
	Help() string
	// Sides names the sides in seat order for the given options; the
	// names double as record tag names ("First", "Second"; "R", "Y", ...).
	// It reports an error for options the game does not support.
	Sides(o Options) ([]string, error)
	// Start returns the initial position for the options.
	Start(o Options) (State, error)
}

// Move is one ply: a whole turn of the side to move. Each game defines its own
// move type; moves are compared with reflect.DeepEqual, so a move must not
// hold pointers or functions.
type Move any

// State is an immutable position. No method changes the receiver: Apply
// returns a new State and leaves the old one usable.
type State interface {
	// Sides names the sides in seat order (as Rules.Sides).
	Sides() []string
	// ToMove is the index of the side to move. It is meaningless once the
	// outcome is over.
	ToMove() int
	// Legal lists every legal move, each exactly once (moves that differ only
	// in the order of independent actions count as one). It is the single
	// source of truth: Apply accepts a move iff Legal would list it.
	Legal() []Move
	// Apply plays m and returns the new position. An illegal move gets an
	// error that wraps ErrIllegalMove and names the rule broken.
	Apply(m Move) (State, error)
	// Outcome reports whether the rules of the game have ended it. The common
	// rulings (repetition) are applied by Line, not here.
	Outcome() Outcome
	// Key identifies the full position (board, reserves, piles, scores, side
	// to move) for repetition: equal keys mean equal positions.
	Key() string
	// Render draws the position in plain ASCII, at most 72 columns, with
	// coordinates on two sides, a legend and whose turn it is, seen from
	// side view (-1: the default orientation).
	Render(view int) string
	// Check verifies the game's invariants (piece conservation, etc.) and
	// returns a description of the first one broken.
	Check() error
}

// Sampler is implemented by states whose Legal list can be large (turns of
// several actions). RandomMove returns one legal move drawn from r without
// enumerating them all; playouts and selfplay use it when present.
type Sampler interface {
	RandomMove(r *rand.Rand) Move
}

// RandomFirst is implemented by the rules of games whose first player the
// referee draws at random when the players do not choose (ziggurat, rpp).
type RandomFirst interface {
	RandomFirst() bool
}

// Settler is implemented by games in which the position decides the ranking
// when play stops by agreement or repetition (rpp ranks by capture piles).
// Games without it rank every side first (a draw).
type Settler interface {
	Settle(reason string) Outcome
}

// Picker is implemented by states that draw a legal move at random exactly
// as moves[r.IntN(len(moves))] does with moves = Legal() (the same move,
// the same use of r; no draw when there is no move), without making the
// list: the computer player's random playouts draw one move a ply. It
// returns the move (nil when there is none) and len(moves).
type Picker interface {
	PickLegal(r *rand.Rand) (Move, int)
}

// LegalCounter is implemented by states that count their legal moves
// without listing them (len(Legal()) without boxing each move): the
// computer player's mobility rule counts the moves of the last positions
// of every playout that reaches its cap.
type LegalCounter interface {
	CountLegal() int
}

// Narrator is implemented by states whose plies do what the board alone
// does not show, such as scoring a point. Narrate says in a sentence or two
// what m, played from the receiver, did to reach after ("" for nothing of
// note); the referee adds it to the reply.
type Narrator interface {
	Narrate(m Move, after State) string
}

// Leave is a seat leaving a game of three or more seats, by resignation
// ("resign") or time forfeit ("time"), where the rules let the others
// play on (a State that implements Leaver). It is a move of the seat that
// leaves, whoever is to move; the record writes it as its own token.
type Leave struct {
	Seat   int
	Reason string
}

// Leave reasons.
const (
	LeaveResign = "resign"
	LeaveTime   = "time"
)

// Rejoin is a seat that left (Leave) coming back into the game with a new
// player (a takeover), where the rules allow it: the record writes it as
// its own token.
type Rejoin struct {
	Seat int
}

// Leaver is implemented by a State whose seats may leave while the others
// play on: CanLeave reports whether seat may leave now (Apply takes a
// Leave then).
type Leaver interface {
	CanLeave(seat int) bool
}

// Outcome is the result of a game.
type Outcome struct {
	// Over is false while the game goes on.
	Over bool
	// Rank holds one rank per side, 1 best; equal ranks share a place. A
	// two-side win is [1 2] or [2 1], a draw [1 1].
	Rank []int
	// Reason says why the game ended, e.g. "three points", "threefold
	// repetition", "no legal move".
	Reason string
}

// Ongoing is the Outcome of a game that goes on.
var Ongoing = Outcome{}

// Win returns the outcome of n sides in which winner wins and every other
// side shares second place.
func Win(n, winner int, reason string) Outcome {
	r := make([]int, n)
	for i := range r {
		r[i] = 2
	}
	r[winner] = 1
	return Outcome{Over: true, Rank: r, Reason: reason}
}

// Draw returns the outcome in which all n sides share first place.
func Draw(n int, reason string) Outcome {
	r := make([]int, n)
	for i := range r {
		r[i] = 1
	}
	return Outcome{Over: true, Rank: r, Reason: reason}
}

// Winner returns the index of the single side ranked first, or -1 when the
// first place is shared or the game is not over.
func (o Outcome) Winner() int {
	w := -1
	for i, r := range o.Rank {
		if r == 1 {
			if w >= 0 {
				return -1
			}
			w = i
		}
	}
	if !o.Over {
		return -1
	}
	return w
}

// Settle ends the game at s by agreement or repetition: the game's Settler
// decides when it has one, else all sides draw.
func Settle(s State, reason string) Outcome {
	if st, ok := s.(Settler); ok {
		return st.Settle(reason)
	}
	return Draw(len(s.Sides()), reason)
}
