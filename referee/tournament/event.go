package tournament

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"pbem/archive/score"
)

// Format is the kind of tournament.
type Format int

// The formats.
const (
	// RoundRobin: every player meets every other once (Berger tables).
	RoundRobin Format = iota + 1
	// DoubleRoundRobin: every pair meets twice, sides swapped.
	DoubleRoundRobin
	// Swiss: a fixed number of rounds paired on the scores (see Pair).
	Swiss
	// Tables: games of more than two seats (rpp); each round seats the
	// players at tables drawn so that they meet as many different
	// opponents as possible.
	Tables
)

var formatNames = map[Format]string{
	RoundRobin:       "round robin",
	DoubleRoundRobin: "double round robin",
	Swiss:            "Swiss",
	Tables:           "tables",
}

// String names the format as the standings title does.
func (f Format) String() string {
	if s, ok := formatNames[f]; ok {
		return s
	}
	return fmt.Sprintf("format(%d)", int(f))
}

// Player is an entrant.
type Player struct {
	// ID identifies the player to the caller (an address); unique.
	ID string
	// Name is how standings and pairings show the player.
	Name string
}

// Game is one game of a round: a two-player game or a table.
type Game struct {
	// ID is the caller's name for the game; the package keeps it as given.
	ID string
	// Round is the round number, from 1.
	Round int
	// Board numbers the games of a round from 1.
	Board int
	// Players are the player IDs by seat: seat 0 moves first (White).
	Players []string
	// Ranks holds one rank per seat once the game has ended (1 best; equal
	// ranks share a place, as engine.Outcome.Rank); nil while it goes on.
	Ranks []int
	// Forfeit marks a result decided without play (a withdrawal): it
	// counts in the score but not in Sonneborn-Berger, and counts as an
	// unplayed round in Buchholz (see Standings).
	Forfeit bool
}

// Ended reports whether the game has a result.
func (g *Game) Ended() bool { return g.Ranks != nil }

// Bye is a round in which a player was not paired: the pairing-allocated
// bye, or a round the player asked in advance to sit out (Kind).
type Bye struct {
	Round  int
	Player string
	// Kind is PairingBye for the bye the pairing gives (TRF U), HalfPoint
	// or ZeroPoint for a round the player asked to miss.
	Kind ByeKind
}

// ByeKind is how a player came to sit out a round.
type ByeKind int

// The kinds of bye.
const (
	// PairingBye is the pairing-allocated bye (TRF U): the player left
	// over by the pairing scores the bye (see UnscoredByes). At most one a
	// player in a Swiss event.
	PairingBye ByeKind = iota
	// HalfPoint is a half-point bye the player asked for in advance (TRF
	// H): not paired that round, scores 1/2.
	HalfPoint
	// ZeroPoint is a round the player will miss (TRF Z): not paired that
	// round, scores 0, paired again in the next.
	ZeroPoint
)

// Requested reports whether the bye was asked for (HalfPoint, ZeroPoint)
// rather than given by the pairing.
func (k ByeKind) Requested() bool { return k == HalfPoint || k == ZeroPoint }

// Event is a tournament: its settings and everything that has happened.
// The caller stores it; this package only reads it (Apply appends a round).
type Event struct {
	// Name titles the standings.
	Name   string
	Format Format
	// Rounds is the number of rounds of a Swiss or Tables event. For the
	// round robins it is derived from the number of players (zero, or the
	// derived value).
	Rounds int
	// TableSizes are the table sizes the game allows, for Tables: the
	// first is the normal size (the tournament's seat count); others, if
	// any, are smaller tables the game can also be played at. Two-player
	// formats ignore it.
	TableSizes []int
	// UnscoredByes makes a bye worth nothing instead of one point (a
	// table's average score for Tables). Round robins of an odd number of
	// players often do so: every player sits out once, and the archive's
	// crosstable, which sees games only, then agrees with the standings.
	UnscoredByes bool
	// Seed makes the Tables draw reproducible: equal events with equal
	// seeds draw equal tables.
	Seed uint64
	// Players in seed order (the first is the top seed).
	Players []Player
	// Games paired so far, with their results when ended.
	Games []Game
	// Byes given so far, and the requested byes (HalfPoint, ZeroPoint) of
	// rounds to come: Swiss only. A requested bye of a round not yet
	// paired keeps the player out of its pairing and scores once the
	// round is paired.
	Byes []Bye
	// InitialBlack gives Black, in round 1, to the top player of the first
	// board (TRF XXC black1): the colours of rule E.5 of the Dutch system
	// are swapped for the whole event. False is XXC white1.
	InitialBlack bool
	// Accelerated pairs the first rounds of a Swiss event with the Baku
	// acceleration (FIDE C.04.5.1): see Acceleration.
	Accelerated bool
	// VirtualPoints, when not nil, are the virtual points added to each
	// player's score (by ID; half points, by round from 1) when a round
	// is paired; they replace those of Accelerated. ReadTRF fills it from
	// XXA lines.
	VirtualPoints map[string][]int
	// Withdrawn lists the IDs of players who left: they are not paired in
	// later rounds (their pending games are forfeited; see Forfeits).
	Withdrawn []string
}

// Round is one round's pairing, as Pair returns it.
type Round struct {
	// Number of the round, from 1.
	Number int
	// Games to start, by board, without results.
	Games []Game
	// Forfeited are games of the schedule decided without play because a
	// player withdrew (round robins only): their results are set.
	Forfeited []Game
	// Byes are the IDs of the players who sit out and score the bye.
	Byes []string
}

// ErrFinished is returned by Pair when every round has been paired.
var ErrFinished = errors.New("tournament: every round has been paired")

// seats returns the normal number of seats per game.
func (e *Event) seats() int {
	if e.Format == Tables && len(e.TableSizes) > 0 {
		return e.TableSizes[0]
	}
	return 2
}

// TotalRounds returns the number of rounds of the event.
func (e *Event) TotalRounds() int {
	n := len(e.Players)
	switch e.Format {
	case RoundRobin, DoubleRoundRobin:
		r := n - 1
		if n%2 == 1 {
			r = n
		}
		if n < 2 {
			r = 0
		}
		if e.Format == DoubleRoundRobin {
			r *= 2
		}
		return r
	}
	return e.Rounds
}

// Paired returns the last round paired so far (0 before the first).
func (e *Event) Paired() int {
	r := 0
	for _, g := range e.Games {
		r = max(r, g.Round)
	}
	for _, b := range e.Byes {
		if !b.Kind.Requested() {
			r = max(r, b.Round)
		}
	}
	return r
}

// withdrawn reports whether the player has withdrawn.
func (e *Event) withdrawn(id string) bool { return slices.Contains(e.Withdrawn, id) }

// Check verifies that the event is consistent: a known format, unique
// player IDs, games and byes that name known players in known rounds,
// ranks that fit the seats. Pair and Standings call it first.
func (e *Event) Check() error {
	switch e.Format {
	case RoundRobin, DoubleRoundRobin:
		if e.Rounds != 0 && e.Rounds != e.TotalRounds() {
			return fmt.Errorf("tournament: a %s of %d players has %d rounds, not %d", e.Format, len(e.Players), e.TotalRounds(), e.Rounds)
		}
	case Swiss:
		if e.Rounds < 1 {
			return fmt.Errorf("tournament: a Swiss event needs a number of rounds, got %d", e.Rounds)
		}
		if n := len(e.Players); n > 1 && e.Rounds > n-1+n%2 {
			return fmt.Errorf("tournament: %d players can play at most %d Swiss rounds without meeting twice, not %d", n, n-1+n%2, e.Rounds)
		}
	case Tables:
		if e.Rounds < 1 {
			return fmt.Errorf("tournament: a tables event needs a number of rounds, got %d", e.Rounds)
		}
		if len(e.TableSizes) == 0 {
			return errors.New("tournament: a tables event needs its table sizes, e.g. [3]")
		}
		for _, s := range e.TableSizes {
			if s < 2 {
				return fmt.Errorf("tournament: table size %d; want 2 seats or more", s)
			}
		}
	default:
		return fmt.Errorf("tournament: unknown format %d; want round robin, double round robin, Swiss or tables", int(e.Format))
	}
	ids := map[string]bool{}
	for _, p := range e.Players {
		if p.ID == "" {
			return errors.New("tournament: a player has no ID")
		}
		if ids[p.ID] {
			return fmt.Errorf("tournament: player %q entered twice", p.ID)
		}
		ids[p.ID] = true
	}
	for _, id := range e.Withdrawn {
		if !ids[id] {
			return fmt.Errorf("tournament: withdrawn player %q is not entered", id)
		}
	}
	type slot struct {
		round int
		id    string
	}
	inRound := map[slot]bool{}
	seen := func(round int, id, what string) error {
		if !ids[id] {
			return fmt.Errorf("tournament: %s names %q, who is not entered", what, id)
		}
		k := slot{round, id}
		if inRound[k] {
			return fmt.Errorf("tournament: %q is paired twice in round %d", id, round)
		}
		inRound[k] = true
		return nil
	}
	for i, g := range e.Games {
		what := fmt.Sprintf("game %d (round %d, board %d)", i+1, g.Round, g.Board)
		if g.Round < 1 {
			return fmt.Errorf("tournament: %s has no round", what)
		}
		if len(g.Players) < 2 {
			return fmt.Errorf("tournament: %s has %d players; want 2 or more", what, len(g.Players))
		}
		if g.Ranks != nil && len(g.Ranks) != len(g.Players) {
			return fmt.Errorf("tournament: %s has %d ranks for %d seats", what, len(g.Ranks), len(g.Players))
		}
		for _, r := range g.Ranks {
			if r < 1 || r > len(g.Players) {
				return fmt.Errorf("tournament: %s has rank %d; want 1 to %d", what, r, len(g.Players))
			}
		}
		for _, id := range g.Players {
			if err := seen(g.Round, id, what); err != nil {
				return err
			}
		}
	}
	byes := map[string]int{}
	for _, b := range e.Byes {
		if b.Round < 1 {
			return fmt.Errorf("tournament: the bye of %q has no round", b.Player)
		}
		if err := seen(b.Round, b.Player, fmt.Sprintf("the bye of round %d", b.Round)); err != nil {
			return err
		}
		switch {
		case b.Kind.Requested() && e.Format != Swiss:
			return fmt.Errorf("tournament: %q asked for a bye in round %d, but only a Swiss event takes requested byes", b.Player, b.Round)
		case b.Kind.Requested() && b.Round > e.TotalRounds():
			return fmt.Errorf("tournament: %q asked for a bye in round %d, but the event has %d rounds", b.Player, b.Round, e.TotalRounds())
		case b.Kind.Requested():
		case b.Kind != PairingBye:
			return fmt.Errorf("tournament: the bye of %q in round %d is of unknown kind %d", b.Player, b.Round, int(b.Kind))
		default:
			byes[b.Player]++
		}
		if e.Format == Swiss && byes[b.Player] > 1 {
			return fmt.Errorf("tournament: %q has had two byes; a Swiss player gets at most one", b.Player)
		}
	}
	for id, v := range e.VirtualPoints {
		if !ids[id] {
			return fmt.Errorf("tournament: virtual points for %q, who is not entered", id)
		}
		for k, p := range v {
			if p < 0 {
				return fmt.Errorf("tournament: %q has %s virtual points in round %d; want 0 or more", id, score.Half(p), k+1)
			}
		}
	}
	return nil
}

// requested returns the kind of bye the player asked for in round r, and
// whether there is one.
func (e *Event) requested(id string, r int) (ByeKind, bool) {
	for _, b := range e.Byes {
		if b.Round == r && b.Player == id && b.Kind.Requested() {
			return b.Kind, true
		}
	}
	return 0, false
}

// Acceleration returns the virtual points (in half points) added to the
// player's score when round r is paired: those of VirtualPoints when set,
// else, when the event is Accelerated, those of the Baku acceleration
// (FIDE C.04.5.1). Baku: the first half of the players in seed order,
// rounded up to an even number (2 x ceil(n/4)), is group A; in the first
// half of the rounds, rounded up (the accelerated rounds), the players of
// group A get one virtual point in the first half of those, rounded up,
// and half a point in the rest. Virtual points only place the players in
// the score brackets: they never count in the standings.
func (e *Event) Acceleration(id string, r int) int {
	if e.VirtualPoints != nil {
		v := e.VirtualPoints[id]
		if r >= 1 && r <= len(v) {
			return v[r-1]
		}
		return 0
	}
	if !e.Accelerated || e.Format != Swiss || r < 1 {
		return 0
	}
	seed := slices.IndexFunc(e.Players, func(p Player) bool { return p.ID == id })
	if seed < 0 || seed >= 2*((len(e.Players)+3)/4) {
		return 0
	}
	accelerated := (e.TotalRounds() + 1) / 2
	switch {
	case r <= (accelerated+1)/2:
		return 2
	case r <= accelerated:
		return 1
	}
	return 0
}

// Apply records a round that Pair returned: its games, forfeited games and
// byes are appended to the event.
func (e *Event) Apply(r *Round) {
	e.Games = append(e.Games, r.Games...)
	e.Games = append(e.Games, r.Forfeited...)
	for _, id := range r.Byes {
		e.Byes = append(e.Byes, Bye{Round: r.Number, Player: id, Kind: PairingBye})
	}
}

// Pending returns the games without a result.
func (e *Event) Pending() []Game {
	var out []Game
	for _, g := range e.Games {
		if !g.Ended() {
			out = append(out, g)
		}
	}
	return out
}

// Forfeits returns the pending games that the withdrawal of player
// forfeits, with their results set and Forfeit true: in a two-player game
// the opponent wins; at a table the players who withdrew share the last
// place and the others share the first (so each beats every withdrawn
// player and draws with the rest). The caller records these results (or,
// at a table that plays on, the real ranks with the withdrawn player
// last). Games already ended are left alone; Players are copied.
func (e *Event) Forfeits(player string) []Game {
	gone := func(id string) bool { return id == player || e.withdrawn(id) }
	var out []Game
	for _, g := range e.Games {
		if g.Ended() || !slices.Contains(g.Players, player) {
			continue
		}
		g.Players = slices.Clone(g.Players)
		g.Ranks = forfeitRanks(g.Players, gone)
		g.Forfeit = true
		out = append(out, g)
	}
	return out
}

// forfeitRanks ranks the players who stay first (shared) and those gone
// last (shared).
func forfeitRanks(players []string, gone func(string) bool) []int {
	stay := 0
	for _, id := range players {
		if !gone(id) {
			stay++
		}
	}
	ranks := make([]int, len(players))
	for i, id := range players {
		ranks[i] = 1
		if gone(id) && stay > 0 {
			ranks[i] = stay + 1
		}
	}
	return ranks
}

// Opens reports whether round r may open at time now. Round 1 opens at
// once. A later round opens when every game of the round before has ended,
// or, when the director set a date for it (date not zero), once that date
// has come, whatever is still being played. A Swiss round is paired on the
// scores, so it opens only when every game before it has ended, date or
// not (Pair refuses otherwise). Rounds beyond the last never open.
func (e *Event) Opens(r int, date, now time.Time) bool {
	if r < 1 || r > e.TotalRounds() {
		return false
	}
	if r == 1 {
		return true
	}
	ended := true
	for _, g := range e.Games {
		if g.Round < r && !g.Ended() {
			if g.Round == r-1 || e.Format == Swiss {
				ended = false
			}
		}
	}
	if ended {
		return true
	}
	return e.Format != Swiss && !date.IsZero() && !now.Before(date)
}

// Pair pairs the next round (Paired()+1): it returns the games to start,
// the byes and, in a round robin, the games forfeited by withdrawals. It
// does not change the event; Apply records the round. It returns
// ErrFinished after the last round, and an error when the event is
// inconsistent, when a Swiss round is asked while games before it are
// pending, or when no valid pairing exists.
func (e *Event) Pair() (*Round, error) {
	if err := e.Check(); err != nil {
		return nil, err
	}
	r := e.Paired() + 1
	if r > e.TotalRounds() {
		return nil, ErrFinished
	}
	switch e.Format {
	case RoundRobin, DoubleRoundRobin:
		return e.pairRoundRobin(r), nil
	case Swiss:
		for _, g := range e.Games {
			if !g.Ended() {
				return nil, fmt.Errorf("tournament: Swiss round %d is paired on the scores, but game %d of round %d has no result yet", r, g.Board, g.Round)
			}
		}
		return e.pairSwiss(r)
	default:
		return e.pairTables(r)
	}
}
