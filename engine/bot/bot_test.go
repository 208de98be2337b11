package bot_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"pbem/engine"
	"pbem/engine/bot"
	"pbem/engine/castles"
	"pbem/engine/elevation"
	"pbem/engine/enginetest"
	"pbem/engine/rpp"
	"pbem/engine/ziggurat"
	"pbem/engine/ziggurat43"
)

// variant is one game and options the tests play.
type variant struct {
	rules engine.Rules
	opts  engine.Options
}

func (v variant) String() string {
	return fmt.Sprintf("%s/players=%d", v.rules.ID(), v.opts.Players)
}

func (v variant) start(t testing.TB) engine.State {
	t.Helper()
	s, err := v.rules.Start(v.opts)
	if err != nil {
		t.Fatalf("%v: Start = %v", v, err)
	}
	return s
}

var variants = []variant{
	{castles.Rules{}, engine.Options{}},
	{ziggurat.Rules{}, engine.Options{}},
	{elevation.Rules{}, engine.Options{}},
	{ziggurat43.Rules{}, engine.Options{}},
	{rpp.Rules{}, engine.Options{}},
	{rpp.Rules{}, engine.Options{Players: 3}},
	{rpp.Rules{}, engine.Options{Players: 5}},
	{enginetest.ToyRules{}, engine.Options{}},
}

// listed reports whether m is a move Legal lists in s, or (for a move a
// Sampler drew, whose actions may come in another order) leads where one
// of them does.
func listed(s engine.State, m engine.Move) bool {
	moves := s.Legal()
	for _, x := range moves {
		if reflect.DeepEqual(x, m) {
			return true
		}
	}
	got, err := s.Apply(m)
	if err != nil {
		return false
	}
	for _, x := range moves {
		if n, err := s.Apply(x); err == nil && n.Key() == got.Key() {
			return true
		}
	}
	return false
}

// TestMovesAreLegal walks seeded random playouts, as the conformance suite
// does, and asks a small-budget searching player and the random player for
// a move every few plies: each must be a move Legal lists.
func TestMovesAreLegal(t *testing.T) {
	searcher, err := bot.NewBudget(bot.Budget{Playouts: 40}, 1)
	if err != nil {
		t.Fatal(err)
	}
	random, _ := bot.New(0, 1)
	for _, v := range variants {
		t.Run(v.String(), func(t *testing.T) {
			asked := 0
			for game := range 3 {
				r := rand.New(rand.NewPCG(7, uint64(game)))
				line := engine.NewLine(v.start(t))
				for ply := 0; ply < 300 && !line.Outcome().Over; ply++ {
					s := line.State()
					if ply%7 == game {
						for _, p := range []*bot.Player{searcher, random} {
							m, err := p.MoveLine(context.Background(), line)
							if err != nil {
								t.Fatalf("game %d ply %d: %s: MoveLine = %v\n%s", game, ply, p.Name(), err, s.Render(-1))
							}
							if !listed(s, m) {
								t.Fatalf("game %d ply %d: %s chose %#v, which Legal does not list\n%s", game, ply, p.Name(), m, s.Render(-1))
							}
							if _, err := line.Play(m); err != nil {
								t.Fatalf("game %d ply %d: %s chose %#v: Play = %v", game, ply, p.Name(), m, err)
							}
							asked++
						}
					}
					moves := s.Legal()
					var err error
					if line, err = line.Play(moves[r.IntN(len(moves))]); err != nil {
						t.Fatal(err)
					}
				}
			}
			if asked == 0 {
				t.Fatal("no position was asked")
			}
		})
	}
}

// TestBotGamesAreLegal plays whole games of a searching player against
// itself and the random player through engine.Line (which refuses illegal
// plies and ends repetitions), in every game.
func TestBotGamesAreLegal(t *testing.T) {
	a, _ := bot.NewBudget(bot.Budget{Playouts: 25}, 3)
	b, _ := bot.New(0, 4)
	for _, v := range variants {
		t.Run(v.String(), func(t *testing.T) {
			line := engine.NewLine(v.start(t))
			for ply := 0; ply < 400 && !line.Outcome().Over; ply++ {
				p := a
				if ply%3 == 2 {
					p = b
				}
				m, err := p.MoveLine(context.Background(), line)
				if err != nil {
					t.Fatalf("ply %d: %v", ply+1, err)
				}
				if line, err = line.Play(m); err != nil {
					t.Fatalf("ply %d: %s chose %#v: %v", ply+1, p.Name(), m, err)
				}
				if err := line.State().Check(); err != nil {
					t.Fatalf("ply %d: an invariant breaks: %v", ply+1, err)
				}
			}
		})
	}
}

// play returns the moves two players choose in a game of at most plies.
func play(t *testing.T, s engine.State, p []*bot.Player, plies int) []engine.Move {
	t.Helper()
	line := engine.NewLine(s)
	var moves []engine.Move
	for ply := 0; ply < plies && !line.Outcome().Over; ply++ {
		m, err := p[line.State().ToMove()%len(p)].MoveLine(context.Background(), line)
		if err != nil {
			t.Fatalf("ply %d: %v", ply+1, err)
		}
		if line, err = line.Play(m); err != nil {
			t.Fatalf("ply %d: %v", ply+1, err)
		}
		moves = append(moves, m)
	}
	return moves
}

// TestDeterministic: the same seeds play the same game, twice and
// concurrently; another seed plays another game.
func TestDeterministic(t *testing.T) {
	for _, v := range variants {
		t.Run(v.String(), func(t *testing.T) {
			players := func(seed uint64) []*bot.Player {
				a, _ := bot.NewBudget(bot.Budget{Playouts: 30}, seed)
				b, _ := bot.New(0, seed+1)
				return []*bot.Player{a, b}
			}
			first := play(t, v.start(t), players(5), 30)
			done := make(chan []engine.Move)
			go func() { done <- play(t, v.start(t), players(5), 30) }()
			again := play(t, v.start(t), players(5), 30)
			if !reflect.DeepEqual(first, again) {
				t.Errorf("seed 5 played\n%v\nthen\n%v", first, again)
			}
			if conc := <-done; !reflect.DeepEqual(first, conc) {
				t.Errorf("seed 5 played\n%v\nand concurrently\n%v", first, conc)
			}
			differ := false
			for seed := uint64(6); seed < 10 && !differ; seed++ {
				differ = !reflect.DeepEqual(first, play(t, v.start(t), players(seed), 30))
			}
			if !differ {
				t.Errorf("seeds 5 to 9 all played %v", first)
			}
		})
	}
}

// counting wraps a state and counts the plies applied through it, and the
// positions at which a game was judged over or not (playouts and tree).
type counting struct {
	engine.State
	applies *int
}

func (c counting) Apply(m engine.Move) (engine.State, error) {
	*c.applies++
	n, err := c.State.Apply(m)
	if err != nil {
		return nil, err
	}
	return counting{n, c.applies}, nil
}

func (c counting) Settle(reason string) engine.Outcome {
	return engine.Settle(c.State, reason)
}

// TestBudget: a search runs exactly its playouts, and applies no more plies
// than the root's moves (checked once), one tree ply and MaxPlies playout
// plies per playout allow.
func TestBudget(t *testing.T) {
	for _, tc := range []struct{ playouts, maxPlies int }{{1, 5}, {10, 5}, {200, 3}, {500, 40}} {
		t.Run(fmt.Sprintf("playouts=%d,maxplies=%d", tc.playouts, tc.maxPlies), func(t *testing.T) {
			n := 0
			s0, _ := enginetest.ToyRules{}.Start(engine.Options{Players: 2})
			s := counting{s0, &n}
			p, err := bot.NewBudget(bot.Budget{Playouts: tc.playouts, MaxPlies: tc.maxPlies}, 1)
			if err != nil {
				t.Fatal(err)
			}
			r, err := p.Search(context.Background(), engine.NewLine(s))
			if err != nil {
				t.Fatal(err)
			}
			if r.Playouts != tc.playouts {
				t.Errorf("Search ran %d playouts, want %d", r.Playouts, tc.playouts)
			}
			roots := len(s.Legal())
			if limit := roots + tc.playouts*(1+tc.maxPlies); n > limit || n < tc.playouts {
				t.Errorf("Search applied %d plies, want %d to %d", n, tc.playouts, limit)
			}
		})
	}
}

// TestMaxNodes: a search's tree stops growing at its node cap while its
// playouts go on; the default cap bounds level 5 in an 8-seat rpp game (the
// largest position); and a cap above a budget's playouts changes no move,
// so levels 1 to 4 play as they did.
func TestMaxNodes(t *testing.T) {
	rpp8 := variant{rpp.Rules{}, engine.Options{Players: 8}}
	line := engine.NewLine(rpp8.start(t))
	search := func(t *testing.T, b bot.Budget) bot.Result {
		t.Helper()
		p, err := bot.NewBudget(b, 7)
		if err != nil {
			t.Fatal(err)
		}
		r, err := p.Search(context.Background(), line)
		if err != nil {
			t.Fatal(err)
		}
		if !listed(line.State(), r.Move) {
			t.Errorf("Search(%+v) chose %v, not a legal move", b, r.Move)
		}
		return r
	}
	t.Run("cap", func(t *testing.T) {
		b := bot.Budget{Playouts: 1500, MaxNodes: 400}
		r := search(t, b)
		if r.Nodes != b.MaxNodes || r.Playouts != b.Playouts {
			t.Errorf("Search(%+v) grew %d nodes in %d playouts, want %d nodes in %d", b, r.Nodes, r.Playouts, b.MaxNodes, b.Playouts)
		}
		if again := search(t, b); !reflect.DeepEqual(again.Move, r.Move) {
			t.Errorf("a capped search chose %v, then %v", r.Move, again.Move)
		}
	})
	t.Run("level5", func(t *testing.T) {
		b, err := bot.LevelBudget(5)
		if err != nil {
			t.Fatal(err)
		}
		b.Time = 0 // count playouts, not time: as many as a fast machine reaches
		b.Playouts = bot.DefaultMaxNodes + 1000
		r := search(t, b)
		if r.Nodes != bot.DefaultMaxNodes || r.Playouts != b.Playouts {
			t.Errorf("level 5 in 8-seat rpp grew %d nodes in %d playouts, want %d (DefaultMaxNodes) in %d", r.Nodes, r.Playouts, bot.DefaultMaxNodes, b.Playouts)
		}
	})
	t.Run("levels1to4", func(t *testing.T) {
		for level := 1; level < bot.MaxLevel; level++ {
			b, _ := bot.LevelBudget(level)
			if n := max(b.Playouts, b.SampledPlayouts) + 1; n > bot.DefaultMaxNodes || b.MaxNodes != 0 {
				t.Errorf("level %d may grow %d nodes (cap %d), more than DefaultMaxNodes %d: the cap would change its moves", level, n, b.MaxNodes, bot.DefaultMaxNodes)
			}
		}
		free := search(t, bot.Budget{Playouts: 300, MaxNodes: 1 << 30})
		capped := search(t, bot.Budget{Playouts: 300, MaxNodes: 301})
		if !reflect.DeepEqual(free.Move, capped.Move) || capped.Nodes > 301 {
			t.Errorf("300 playouts chose %v uncapped and %v with 301 nodes (%d grown): a cap above the playouts changed the move", free.Move, capped.Move, capped.Nodes)
		}
	})
}

// TestSampledBudget: a budget's SampledPlayouts bound searches in games that
// draw their moves from a Sampler, and Playouts the others.
func TestSampledBudget(t *testing.T) {
	p, err := bot.NewBudget(bot.Budget{Playouts: 50, SampledPlayouts: 20}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range variants {
		t.Run(v.String(), func(t *testing.T) {
			s := v.start(t)
			r, err := p.Search(context.Background(), engine.NewLine(s))
			if err != nil {
				t.Fatal(err)
			}
			want := 50
			if _, ok := s.(engine.Sampler); ok {
				want = 20
			}
			if r.Reason != "search" || r.Playouts != want {
				t.Errorf("Search = %+v; want a search of %d playouts", r, want)
			}
		})
	}
}

// TestGameOver: no player moves in a finished game.
func TestGameOver(t *testing.T) {
	s0, _ := enginetest.ToyRules{}.Start(engine.Options{Players: 2})
	line := engine.NewLine(s0)
	for _, m := range []enginetest.ToyMove{3, 3, 3, 3, 3, 3, 3} {
		var err error
		if line, err = line.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	if !line.Outcome().Over {
		t.Fatal("the toy game at 21 is not over")
	}
	for level := range bot.MaxLevel + 1 {
		p, _ := bot.New(level, 1)
		if m, err := p.MoveLine(context.Background(), line); !errors.Is(err, bot.ErrGameOver) {
			t.Errorf("level %d: MoveLine at 21 = %v, %v; want ErrGameOver", level, m, err)
		}
	}
}

// TestCancelled: a search whose context has ended says so.
func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s, _ := enginetest.ToyRules{}.Start(engine.Options{})
	p, _ := bot.New(1, 1)
	if m, err := p.Move(ctx, s); !errors.Is(err, context.Canceled) {
		t.Errorf("Move on a cancelled context = %v, %v; want context.Canceled", m, err)
	}
}

// toyAt returns a toy position of players sides at total, side A to move.
func toyAt(t *testing.T, players int, plies ...enginetest.ToyMove) *engine.Line {
	t.Helper()
	s, _ := enginetest.ToyRules{}.Start(engine.Options{Players: players})
	line := engine.NewLine(s)
	for _, m := range plies {
		var err error
		if line, err = line.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	return line
}

// TestToyTactics: small budgets find a win in one, and the search sees
// that every addition at 17 hands the next side a win in one (so it
// passes), for two and for three sides.
func TestToyTactics(t *testing.T) {
	tests := []struct {
		name   string
		line   *engine.Line
		want   enginetest.ToyMove
		reason string
	}{
		{"2 sides at 18", toyAt(t, 2, 3, 3, 3, 3, 3, 3), 3, "wins at once"},
		{"3 sides at 19", toyAt(t, 3, 3, 3, 3, 3, 3, 2, 2), 2, "wins at once"},
		{"2 sides at 17", toyAt(t, 2, 3, 3, 3, 3, 3, 2), 0, "search"},
		{"3 sides at 17", toyAt(t, 3, 3, 3, 3, 3, 3, 2), 0, "search"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(5) {
				p, _ := bot.NewBudget(bot.Budget{Playouts: 200}, seed)
				r, err := p.Search(context.Background(), tc.line)
				if err != nil {
					t.Fatal(err)
				}
				if r.Move != tc.want || r.Reason != tc.reason {
					t.Errorf("seed %d: Search = %v (%s, value %.2f), want %v (%s)", seed, r.Move, r.Reason, r.Value, tc.want, tc.reason)
				}
				// Values: one a side, the mover's is Value, and they add
				// up to half the number of sides, as rewards do.
				s := tc.line.State()
				sum := 0.0
				for _, v := range r.Values {
					sum += v
				}
				if n := len(s.Sides()); len(r.Values) != n || r.Values[s.ToMove()] != r.Value || math.Abs(sum-float64(n)/2) > 1e-9 {
					t.Errorf("seed %d: Values = %v, Value %v; want %d values, the mover's (%d) the Value, adding up to %v",
						seed, r.Values, r.Value, n, s.ToMove(), float64(n)/2)
				}
			}
		})
	}
}

func TestRewards(t *testing.T) {
	tests := []struct {
		rank []int
		want []float64
	}{
		{[]int{1, 2}, []float64{1, 0}},
		{[]int{2, 1}, []float64{0, 1}},
		{[]int{1, 1}, []float64{0.5, 0.5}},
		{[]int{1, 2, 2}, []float64{1, 0.25, 0.25}},
		{[]int{1, 2, 3}, []float64{1, 0.5, 0}},
		{[]int{1, 1, 3, 4}, []float64{5.0 / 6, 5.0 / 6, 1.0 / 3, 0}},
	}
	for _, tc := range tests {
		if got := bot.Rewards(engine.Outcome{Over: true, Rank: tc.rank}); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Rewards(%v) = %v, want %v", tc.rank, got, tc.want)
		}
	}
}

func TestNew(t *testing.T) {
	for _, level := range []int{-1, bot.MaxLevel + 1} {
		if _, err := bot.New(level, 1); err == nil {
			t.Errorf("New(%d) succeeded, want an error", level)
		}
	}
	for _, b := range []bot.Budget{{}, {Playouts: -1}, {MaxPlies: 3}, {SampledPlayouts: 10}, {Playouts: 10, SampledPlayouts: -1}} {
		if _, err := bot.NewBudget(b, 1); err == nil {
			t.Errorf("NewBudget(%+v) succeeded, want an error", b)
		}
	}
	prev, prevSampled, prevTime := 0, 0, time.Duration(0)
	for level := 1; level <= bot.MaxLevel; level++ {
		b, err := bot.LevelBudget(level)
		sampled := b.SampledPlayouts
		if sampled == 0 {
			sampled = b.Playouts
		}
		if err != nil || b.Playouts <= prev || sampled <= prevSampled {
			t.Errorf("LevelBudget(%d) = %+v, %v; want more playouts than level %d's %d (%d in games with a Sampler)", level, b, err, level-1, prev, prevSampled)
		}
		switch {
		case level < bot.MaxLevel-1 && b.Time != 0:
			t.Errorf("LevelBudget(%d) = %+v; only the two top levels may be bounded by time (the others are reproducible)", level, b)
		case level >= bot.MaxLevel-1 && (b.Time <= prevTime || b.Time > bot.LevelTimeLimit):
			t.Errorf("LevelBudget(%d) = %+v; want a time bound above level %d's %v, at most LevelTimeLimit %v", level, b, level-1, prevTime, bot.LevelTimeLimit)
		}
		prev, prevSampled, prevTime = b.Playouts, sampled, b.Time
		p, _ := bot.New(level, 1)
		if got, want := p.Name(), fmt.Sprintf("pbem bot (level %d)", level); got != want || p.Level() != level {
			t.Errorf("New(%d): Name, Level = %q, %d; want %q, %d", level, got, p.Level(), want, level)
		}
	}
}

// TestMoveFor: the bot moves for its own seat only.
func TestMoveFor(t *testing.T) {
	line := toyAt(t, 3, 1) // B to move
	p, _ := bot.New(1, 1)
	for _, seat := range []int{0, 2, 5} {
		if m, err := p.MoveFor(context.Background(), line, seat); !errors.Is(err, bot.ErrNotToMove) {
			t.Errorf("MoveFor(seat %d) with B to move = %v, %v; want ErrNotToMove", seat, m, err)
		}
	}
	m, err := p.MoveFor(context.Background(), line, 1)
	if err != nil || !listed(line.State(), m) {
		t.Errorf("MoveFor(seat 1) with B to move = %v, %v; want a legal move", m, err)
	}
	over := toyAt(t, 3, 3, 3, 3, 3, 3, 3, 3)
	if _, err := p.MoveFor(context.Background(), over, over.State().ToMove()); !errors.Is(err, bot.ErrGameOver) {
		t.Errorf("MoveFor in a finished game = %v, want ErrGameOver", err)
	}
}

// TestTimeBudget: a search whose time is up at once still looks at one
// playout and returns a legal move, on every game.
func TestTimeBudget(t *testing.T) {
	p, err := bot.NewBudget(bot.Budget{Time: time.Nanosecond}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range variants {
		line := engine.NewLine(v.start(t))
		r, err := p.Search(context.Background(), line)
		if err != nil {
			t.Fatalf("%v: Search = %v", v, err)
		}
		if r.Reason == "search" && r.Playouts < 1 || !listed(line.State(), r.Move) {
			t.Errorf("%v: Search = %+v; want a legal move after at least one playout", v, r)
		}
	}
}

// TestTimeUp: Result.TimeUp tells a search its time bound stopped (here a
// nanosecond, always spent before the playouts) from one that ran all its
// playouts, so a match can count the moves that depend on the machine.
func TestTimeUp(t *testing.T) {
	line := engine.NewLine(variant{castles.Rules{}, engine.Options{}}.start(t))
	for _, tc := range []struct {
		b    bot.Budget
		want bool
	}{
		{bot.Budget{Playouts: 50}, false},
		{bot.Budget{Playouts: 1 << 30, Time: time.Nanosecond}, true},
	} {
		p, err := bot.NewBudget(tc.b, 1)
		if err != nil {
			t.Fatal(err)
		}
		r, err := p.Search(context.Background(), line)
		if err != nil || r.Reason != "search" || r.TimeUp != tc.want {
			t.Errorf("budget %+v: Search = %+v, %v; want a search with TimeUp %v", tc.b, r, err, tc.want)
		}
		if !tc.want && r.Playouts != tc.b.Playouts {
			t.Errorf("budget %+v: %d playouts, want all %d", tc.b, r.Playouts, tc.b.Playouts)
		}
	}
}
