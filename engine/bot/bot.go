// Package bot is the generic computer player: a Monte Carlo tree search with
// random playouts over the engine contract (State, Legal, Apply, Outcome,
// and Sampler for games whose turns are large; Picker and LegalCounter,
// where a game has them, draw and count moves without listing them, for
// the same games faster). It knows no game by name, so every game of the
// catalog, present and future, gets a player.
//
// Search is max^n-style UCT: every node keeps one reward per side and the
// side to move at a node picks the child best for itself, so the same search
// serves two players and rpp's many. Rewards come from Outcome.Rank: a side
// scores one point for each side ranked below it and half a point for each
// side sharing its rank, divided by the number of other sides (a two-side
// win is 1 and 0, a draw 1/2 each).
//
// Playouts stop after Budget.MaxPlies plies (DefaultMaxPlies: short, since
// random play in some games hardly ever ends). An unfinished playout is
// scored by the game's own settlement when it has one (engine.Settler: rpp
// ranks by capture piles), else by mobility: the side with more legal moves
// than its opponent scores a little better than a draw.
//
// A Player is a pure function of its budget, its seed and the game so far:
// with a playout budget (no time limit, no context deadline) it plays the
// same move in the same line every time, which is what a referee replaying
// a turn after a crash, or a test, needs.
package bot

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"time"

	"pbem/engine"
)

// MaxLevel is the strongest level; level 0 is a uniform random mover.
const MaxLevel = 5

// DefaultMaxPlies caps a playout: a playout that reaches it is scored by
// Evaluate instead of played out.
const DefaultMaxPlies = 40

// ErrGameOver is returned when a move is asked for in a finished game.
var ErrGameOver = errors.New("bot: the game is over")

// Budget bounds one search. At least one of Playouts and Time must be set
// (the context's deadline bounds it too).
type Budget struct {
	// Playouts is the number of search iterations (each one random playout);
	// 0 means no limit.
	Playouts int
	// SampledPlayouts, when set, replaces Playouts in games whose states
	// draw their moves from a Sampler: games of large turns, whose playouts
	// cost more and whose searches widen slowly.
	SampledPlayouts int
	// Time is the longest a search may think, counted from the start of
	// Search; 0 means no limit. A search stopped by time is not
	// reproducible: use Playouts for that.
	Time time.Duration
	// MaxPlies caps each playout; 0 means DefaultMaxPlies.
	MaxPlies int
	// MaxNodes caps the search tree's nodes, and so its memory; 0 means
	// DefaultMaxNodes. A search that reaches it goes on with its playouts
	// from the tree's leaves but adds no node. A search makes at most one
	// node a playout (and the root), so a budget of fewer playouts than
	// MaxNodes never meets the cap.
	MaxNodes int
}

// DefaultMaxNodes bounds every search's tree: treeBytes over nodeBytes
// (10,922 nodes). Levels 1 to 4 search fewer playouts than that, so the cap
// never changes their moves; it bounds level 5 and custom budgets.
const DefaultMaxNodes = treeBytes / nodeBytes

// treeBytes is the memory a search tree may hold. The garbage of the
// playouts comes on top (the heap grows to two or three times what is live
// before the collector runs): a level-5 move in an 8-seat rpp game, the
// dearest, peaks at about 45 MB of heap at 100,000 playouts (a 13 MB tree;
// 335 MB, with a 124 MB tree, before the cap).
const treeBytes = 16 << 20

// nodeBytes is the most a node of a full tree held in the games of the
// catalog (the node, its line and position, its share of listed moves and
// of its parent's children): about 1,330 bytes in an 8-seat rpp game, the
// largest position, and 550 to 600 in castles.
const nodeBytes = 1536

// playouts is the playout bound of b for a search from s.
func (b Budget) playouts(s engine.State) int {
	if _, ok := s.(engine.Sampler); ok && b.SampledPlayouts > 0 {
		return b.SampledPlayouts
	}
	return b.Playouts
}

// levels are the budgets of levels 1 to MaxLevel. Levels 1 to 3 are playout
// counts only, so their moves are reproducible; level 4 is one too, but
// stops at level4Time, half of level 5's time, which only its dearest moves
// reach (an rpp move took 7.5 s before the bound): its moves are the same
// every time as long as its playouts end first, and Result.TimeUp tells
// when they did not. The step from level 3 up is
// steeper than the one below it (3x, then 6x, then what level 5's time
// allows), because each doubling of the playouts gains less than the one
// before. Level 4 has half its playouts in games of large turns (a
// Sampler): their playouts are the dearest, and level 5 must still search
// several times as many within its time. Level 5 thinks until
// LevelTimeLimit less a margin for the work around the search (the root's
// win-in-one check, the final choice), or until its playouts are spent,
// which happens in quick games only; its moves depend on the machine's
// speed. Its tree stops growing at DefaultMaxNodes (the memory bound), and
// its later playouts start from the tree's leaves.
var levels = [MaxLevel + 1]Budget{
	1: {Playouts: 100},
	2: {Playouts: 300},
	3: {Playouts: 1000},
	4: {Playouts: 6000, SampledPlayouts: 3000, Time: level4Time},
	5: {Playouts: 100000, Time: LevelTimeLimit - levelTimeMargin},
}

// LevelTimeLimit bounds the thinking time of a level-5 move.
const LevelTimeLimit = 2 * time.Second

// level4Time bounds a level-4 search: half of what level 5 may think, so
// that level 5 still searches about twice as long where both are stopped
// by time.
const level4Time = (LevelTimeLimit - levelTimeMargin) / 2

// levelTimeMargin is what level 5 keeps of LevelTimeLimit for the work a
// search does before its first playout and after its last.
const levelTimeMargin = 200 * time.Millisecond

// LevelBudget returns the budget of a level from 1 to MaxLevel.
func LevelBudget(level int) (Budget, error) {
	if level < 1 || level > MaxLevel {
		return Budget{}, fmt.Errorf("bot: level %d has no search budget; expected 1 to %d", level, MaxLevel)
	}
	return levels[level], nil
}

// Player chooses moves. It holds no state between moves and is safe for
// concurrent use.
type Player struct {
	level  int // 0: random mover; -1: a custom budget
	seed   uint64
	budget Budget
}

// New returns the player of a level from 0 (uniform random moves) to
// MaxLevel, whose random choices are drawn from seed.
func New(level int, seed uint64) (*Player, error) {
	if level < 0 || level > MaxLevel {
		return nil, fmt.Errorf("bot: no level %d; expected 0 to %d", level, MaxLevel)
	}
	return &Player{level: level, seed: seed, budget: levels[level]}, nil
}

// NewBudget returns a searching player with a budget of its own.
func NewBudget(b Budget, seed uint64) (*Player, error) {
	if b.Playouts < 0 || b.SampledPlayouts < 0 || b.Time < 0 || b.MaxPlies < 0 || b.MaxNodes < 0 {
		return nil, fmt.Errorf("bot: budget %+v has a negative bound; expected zero (no bound) or more", b)
	}
	if b.Playouts == 0 && b.Time == 0 {
		return nil, errors.New("bot: the budget bounds neither playouts nor time; expected at least one")
	}
	return &Player{level: -1, seed: seed, budget: b}, nil
}

// Level is the player's level (0 to MaxLevel), or -1 for a custom budget.
func (p *Player) Level() int { return p.level }

// Name is how records name the player: "pbem bot (level N)".
func (p *Player) Name() string {
	if p.level < 0 {
		return fmt.Sprintf("pbem bot (%d playouts)", p.budget.Playouts)
	}
	return fmt.Sprintf("pbem bot (level %d)", p.level)
}

// Move chooses a move for the side to move in s, as if s were the start of
// the game (no repetition history). See MoveLine.
func (p *Player) Move(ctx context.Context, s engine.State) (engine.Move, error) {
	return p.MoveLine(ctx, engine.NewLine(s))
}

// MoveLine chooses a move for the side to move at the end of l; the search
// knows the line's history, so it sees a threefold repetition coming. The
// move is one Legal lists (or the game's Sampler drew). It returns
// ErrGameOver when the line's outcome is over, and the context's error when
// the context had ended before the search began; a search cut short later
// (by the context or Budget.Time) has run at least one playout and returns
// the best move found so far.
func (p *Player) MoveLine(ctx context.Context, l *engine.Line) (engine.Move, error) {
	r, err := p.Search(ctx, l)
	if err != nil {
		return nil, err
	}
	return r.Move, nil
}

// ErrNotToMove is returned by MoveFor when the seat asked for is not the
// side to move: the bot never moves for another seat (a person's).
var ErrNotToMove = errors.New("bot: not this seat's turn")

// MoveFor is MoveLine for the bot that holds seat: it refuses (with
// ErrNotToMove) when another side is to move, so a caller cannot make the
// bot play a turn that is not its own.
func (p *Player) MoveFor(ctx context.Context, l *engine.Line, seat int) (engine.Move, error) {
	if o := l.Outcome(); o.Over {
		return nil, fmt.Errorf("%w (%s)", ErrGameOver, o.Reason)
	}
	s := l.State()
	if t := s.ToMove(); t != seat {
		return nil, fmt.Errorf("%w: %s is to move, not %s", ErrNotToMove, sideName(s, t), sideName(s, seat))
	}
	return p.MoveLine(ctx, l)
}

func sideName(s engine.State, seat int) string {
	if sides := s.Sides(); seat >= 0 && seat < len(sides) {
		return sides[seat]
	}
	return fmt.Sprintf("seat %d", seat)
}

// Result is what a search found.
type Result struct {
	Move engine.Move
	// Playouts is the number of search iterations run.
	Playouts int
	// Nodes is the number of nodes the search tree grew to (at most
	// Budget.MaxNodes).
	Nodes int
	// Value is the expected reward (0 to 1) of Move for the side to move,
	// as the search estimates it; 0.5 when the player did not search.
	Value float64
	// Values are the expected rewards (0 to 1) of every side after Move,
	// as the search estimates them (Value is the mover's), or the rewards
	// of the outcome when Move ends the game at once; nil when the player
	// did not search (a random or only move).
	Values []float64
	// Reason says how the move was chosen: "search", "only move",
	// "wins at once" or "random".
	Reason string
	// TimeUp reports that the search stopped at Budget.Time or at the
	// context's end before its playouts were spent: the move depends on the
	// machine's speed.
	TimeUp bool
}

// Search chooses a move as MoveLine does and reports how.
func (p *Player) Search(ctx context.Context, l *engine.Line) (Result, error) {
	if o := l.Outcome(); o.Over {
		return Result{}, fmt.Errorf("%w (%s)", ErrGameOver, o.Reason)
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("bot: %w", err)
	}
	s := l.State()
	r := rand.New(rand.NewPCG(p.seed, positionHash(l)))
	if p.level == 0 {
		m := randomMove(s, r)
		if m == nil {
			return Result{}, fmt.Errorf("bot: the game is not over but the side to move has no legal move")
		}
		return Result{Move: m, Value: 0.5, Reason: "random"}, nil
	}
	return newSearch(p.budget, r).run(ctx, l)
}

// positionHash mixes the line's position and length into the stream of the
// random numbers of a search, so that the same line always gets the same
// search and different positions get different ones.
func positionHash(l *engine.Line) uint64 {
	h := fnv.New64a()
	h.Write([]byte(l.State().Key()))
	return h.Sum64() ^ uint64(l.Plies())*0x9e3779b97f4a7c15
}

// randomMove draws a legal move: from the game's Sampler when it has one,
// else uniformly from Legal; nil when there is none.
func randomMove(s engine.State, r *rand.Rand) engine.Move {
	m, _ := randomMoveCount(s, r)
	return m
}

// randomMoveCount is randomMove that also returns the number of legal moves
// when it listed them (-1 when a Sampler drew the move), so that a playout
// learns the mobility of its last positions without listing them again.
func randomMoveCount(s engine.State, r *rand.Rand) (engine.Move, int) {
	if smp, ok := s.(engine.Sampler); ok {
		return smp.RandomMove(r), -1
	}
	if p, ok := s.(engine.Picker); ok {
		return p.PickLegal(r)
	}
	moves := s.Legal()
	if len(moves) == 0 {
		return nil, 0
	}
	return moves[r.IntN(len(moves))], len(moves)
}

// Rewards turns an outcome into one reward per side in [0, 1]: a point for
// each side ranked below, half a point for each other side sharing the
// rank, divided by the number of other sides. The rewards of all sides add
// up to half the number of sides.
func Rewards(o engine.Outcome) []float64 {
	n := len(o.Rank)
	w := make([]float64, n)
	if n < 2 {
		for i := range w {
			w[i] = 1
		}
		return w
	}
	for i, ri := range o.Rank {
		pts := 0.0
		for j, rj := range o.Rank {
			switch {
			case j == i:
			case rj > ri:
				pts++
			case rj == ri:
				pts += 0.5
			}
		}
		w[i] = pts / float64(n-1)
	}
	return w
}

// mobilityWeight is how far from a draw mobility moves the score of an
// unfinished playout (0.5 would score a side with every move and its
// opponent with none as a win).
const mobilityWeight = 0.2

// evaluate scores a position where a playout stops unfinished. A game with
// a Settler settles it. Otherwise each side's mobility is the number of its
// legal moves when it was last to move among the positions just before s
// and s itself: mob holds the counts the playout already knows (-1 for
// unknown), and recent the positions, oldest first, whose counts are still
// to be listed. Each pair of sides scores as a draw shifted by
// mobilityWeight times the difference of their shares of the two
// mobilities. Sides with no recent position count as even.
func evaluate(s engine.State, recent []engine.State, mob []float64) []float64 {
	n := len(s.Sides())
	if _, ok := s.(engine.Settler); ok || len(recent) == 0 || n < 2 {
		return Rewards(engine.Settle(s, "playout cap"))
	}
	for i := len(recent) - 1; i >= 0; i-- {
		if t := recent[i].ToMove(); t >= 0 && t < n && mob[t] < 0 {
			mob[t] = float64(countLegal(recent[i]))
		}
	}
	w := make([]float64, n)
	for i := range n {
		pts := 0.0
		for j := range n {
			if j == i {
				continue
			}
			pts += 0.5
			if mob[i] >= 0 && mob[j] >= 0 && mob[i]+mob[j] > 0 {
				pts += mobilityWeight * (mob[i] - mob[j]) / (mob[i] + mob[j])
			}
		}
		w[i] = pts / float64(n-1)
	}
	return w
}

// countLegal is the number of s's legal moves, counted by the game when
// it can (engine.LegalCounter) rather than listed.
func countLegal(s engine.State) int {
	if lc, ok := s.(engine.LegalCounter); ok {
		return lc.CountLegal()
	}
	return len(s.Legal())
}

// wins reports whether side alone is ranked first.
func wins(o engine.Outcome, side int) bool {
	return o.Over && o.Winner() == side
}

// exploration is the UCT constant for rewards in [0, 1].
const exploration = math.Sqrt2 / 2
