package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"pbem/engine"
	"pbem/engine/bot"
	"pbem/notation"
	"pbem/referee"
)

func runMatch(c *cli, args []string) int {
	fs := c.flags("match")
	a := fs.Int("a", -1, fmt.Sprintf("the level `LEVEL` (0 to %d) of bot A", bot.MaxLevel))
	b := fs.Int("b", -1, fmt.Sprintf("the level `LEVEL` (0 to %d) of bot B", bot.MaxLevel))
	n := fs.Int("n", 0, "number of games `N`; A takes each seat in turn")
	seed := fs.Uint64("seed", 1, "random seed (the same seed gives the same games)")
	players := fs.Int("players", 0, "number of seats (rpp; 0 = the game's default); A plays one, B the others")
	board := fs.String("board", "", "board name (rpp; default for the number of players)")
	maxPlies := fs.Int("max-plies", 2000, "settle a game still going after `M` plies (rpp by capture piles, other games as a draw); bots can take over a thousand plies to finish an elevation game")
	stats := fs.Bool("stats", false, "also print each level's thinking time per move (min, median, 90th percentile, max), the game lengths and A's results per seat")
	pos, code, done := c.parse(fs, args)
	if done {
		return code
	}
	usage := func(format string, args ...any) int {
		fmt.Fprintf(c.stderr, "pbem match: "+format+"\n", args...)
		return 2
	}
	if len(pos) != 1 {
		return usage("expected one game id (see pbem games), got %d arguments", len(pos))
	}
	if *a < 0 || *a > bot.MaxLevel || *b < 0 || *b > bot.MaxLevel {
		return usage("--a and --b are required levels 0 to %d, got --a %d --b %d", bot.MaxLevel, *a, *b)
	}
	if *n < 1 {
		return usage("-n must be at least 1 game, got %d", *n)
	}
	if *maxPlies < 1 {
		return usage("--max-plies must be at least 1, got %d", *maxPlies)
	}
	codec, err := referee.Lookup(pos[0])
	if err != nil {
		return usage("%v", err)
	}
	o := engine.Options{Players: *players, Board: *board}
	start, err := codec.Rules().Start(o)
	if err != nil {
		return usage("%v", err)
	}
	m := &match{codec: codec, start: start, levels: [2]int{*a, *b}, seed: *seed, maxPlies: *maxPlies}
	results, err := m.play(context.Background(), *n)
	if err != nil {
		fmt.Fprintf(c.stderr, "pbem match: %v\n", err)
		return 1
	}
	m.report(c, results, *stats)
	return 0
}

// match plays bot A against bot B.
type match struct {
	codec    notation.Codec
	start    engine.State
	levels   [2]int // of A and B
	seed     uint64
	maxPlies int
}

// gameResult is one game of a match.
type gameResult struct {
	seat   int     // A's seat
	score  float64 // A's reward: 1 win, 0.5 even, 0 loss (bot.Rewards)
	plies  int
	reason string
	think  [2][]time.Duration // per move, of A and of B
	// playouts per searched move (not random, only or winning moves), of A
	// and of B.
	playouts [2][]int
}

// play plays n games on GOMAXPROCS workers; results are in game order.
func (m *match) play(ctx context.Context, n int) ([]gameResult, error) {
	results := make([]gameResult, n)
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := range next {
				results[i], errs[i] = m.game(ctx, i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("game %d: %w", i+1, err)
		}
	}
	return results, nil
}

// gameSeed derives the seed of one bot in game i.
func (m *match) gameSeed(i, who int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%d/%d", m.seed, i, who)
	return h.Sum64()
}

// game plays game i: A takes seat i mod the number of seats, B every other.
func (m *match) game(ctx context.Context, i int) (gameResult, error) {
	sides := len(m.start.Sides())
	var players [2]*bot.Player
	for who := range 2 {
		p, err := bot.New(m.levels[who], m.gameSeed(i, who))
		if err != nil {
			return gameResult{}, err
		}
		players[who] = p
	}
	r := gameResult{seat: i % sides}
	line := engine.NewLine(m.start)
	for line.Plies() < m.maxPlies && !line.Outcome().Over {
		who := 1
		if line.State().ToMove() == r.seat {
			who = 0
		}
		t0 := time.Now()
		res, err := players[who].Search(ctx, line)
		r.think[who] = append(r.think[who], time.Since(t0))
		if err != nil {
			return r, err
		}
		if res.Reason == "search" {
			r.playouts[who] = append(r.playouts[who], res.Playouts)
		}
		if line, err = line.Play(res.Move); err != nil {
			return r, fmt.Errorf("%s chose a move the game refuses: %w", players[who].Name(), err)
		}
	}
	o := line.Outcome()
	if !o.Over {
		o = engine.Settle(line.State(), fmt.Sprintf("move limit of %d plies", m.maxPlies))
	}
	r.score = bot.Rewards(o)[r.seat]
	r.plies = line.Plies()
	r.reason = o.Reason
	return r, nil
}

// wilson is the Wilson score interval at 95% for a mean score p of n games
// (draws count half, which the interval treats as half a success).
func wilson(p float64, n int) (lo, hi float64) {
	const z = 1.959964
	nf := float64(n)
	d := 1 + z*z/nf
	centre := (p + z*z/(2*nf)) / d
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / d
	return max(0, centre-half), min(1, centre+half)
}

func (m *match) report(c *cli, results []gameResult, stats bool) {
	w := c.stdout
	var win, draw, loss int
	total := 0.0
	for _, r := range results {
		total += r.score
		switch {
		case r.score > 0.5:
			win++
		case r.score < 0.5:
			loss++
		default:
			draw++
		}
	}
	n := len(results)
	p := total / float64(n)
	lo, hi := wilson(p, n)
	fmt.Fprintf(w, "%s: A (level %d) vs B (level %d), %d games, seed %d\n", m.codec.Rules().ID(), m.levels[0], m.levels[1], n, m.seed)
	fmt.Fprintf(w, "A: %d wins, %d draws, %d losses\n", win, draw, loss)
	fmt.Fprintf(w, "A scores %.1f/%d = %.3f (95%% CI %.3f to %.3f)\n", total, n, p, lo, hi)
	if !stats {
		return
	}
	reasons := map[string]int{}
	var plies []int
	for _, r := range results {
		reasons[r.reason]++
		plies = append(plies, r.plies)
	}
	slices.Sort(plies)
	fmt.Fprintf(w, "plies per game: min %d, median %d, max %d\n", plies[0], plies[len(plies)/2], plies[len(plies)-1])
	var rs []string
	for k, v := range reasons {
		rs = append(rs, fmt.Sprintf("%s %d", k, v))
	}
	slices.Sort(rs)
	fmt.Fprintf(w, "endings: %s\n", strings.Join(rs, ", "))
	sides := m.start.Sides()
	for seat, side := range sides {
		var sw, sd, sl int
		for _, r := range results {
			switch {
			case r.seat != seat:
			case r.score > 0.5:
				sw++
			case r.score < 0.5:
				sl++
			default:
				sd++
			}
		}
		if sw+sd+sl > 0 {
			fmt.Fprintf(w, "A as %s: %d wins, %d draws, %d losses\n", side, sw, sd, sl)
		}
	}
	for who, name := range []string{"A", "B"} {
		var t []time.Duration
		for _, r := range results {
			t = append(t, r.think[who]...)
		}
		if len(t) == 0 {
			continue
		}
		slices.Sort(t)
		fmt.Fprintf(w, "%s (level %d) per move: %d moves, min %v, median %v, p90 %v, max %v\n",
			name, m.levels[who], len(t), t[0].Round(time.Microsecond), t[len(t)/2].Round(time.Microsecond),
			t[len(t)*9/10].Round(time.Microsecond), t[len(t)-1].Round(time.Microsecond))
		var po []int
		for _, r := range results {
			po = append(po, r.playouts[who]...)
		}
		if len(po) > 0 {
			slices.Sort(po)
			fmt.Fprintf(w, "%s (level %d) playouts per searched move: %d moves, min %d, median %d, max %d\n",
				name, m.levels[who], len(po), po[0], po[len(po)/2], po[len(po)-1])
		}
	}
}
