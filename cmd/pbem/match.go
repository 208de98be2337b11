package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"os/signal"
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
	n := fs.Int("n", 0, "number of games `N`, rounded up to whole rounds (a round is one opening with A in each seat: a pair of games with two seats); with --sprt, the most to play")
	seed := fs.Uint64("seed", 1, "random seed (the same seed gives the same games)")
	players := fs.Int("players", 0, "number of seats (rpp; 0 = the game's default); A plays one, B the others")
	board := fs.String("board", "", "board name (rpp; default for the number of players)")
	maxPlies := fs.Int("max-plies", 2000, "settle a game still going after `M` plies (rpp by capture piles, other games as a draw); bots can take over a thousand plies to finish an elevation game")
	stats := fs.Bool("stats", false, "also print each level's thinking time per move (min, median, 90th percentile, max), the game lengths and A's results per seat")
	jobs := fs.Int("j", runtime.GOMAXPROCS(0), "games played at once, one per core (levels 1 to 4 give the same results with any `N`, unless level 4's time bound cuts a move: --stats counts those)")
	book := fs.Int("book-plies", 4, "each round starts from `K` random plies, the same for each of its games")
	logPath := fs.String("log", "", "append each game to `FILE` (JSON lines) and go on with the match it holds: its whole rounds count as played, and only the rounds after them are played (a test longer than a session)")
	position := fs.String("position", "", "start every game from the position `TEXT` (as pbem show --position prints it) instead of the rules' start; the random plies of --book-plies follow it")
	sprtFlag := fs.String("sprt", "", "a sequential test of A's score `S0,S1` (H0: S0, H1: S1, such as 0.5,0.6) with alpha = beta = 0.05 on the round results; stops when it decides (or at -n)")
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
	if *jobs < 1 {
		return usage("-j must be at least 1 game at once, got %d", *jobs)
	}
	if *book < 0 {
		return usage("--book-plies must be 0 or more, got %d", *book)
	}
	var test *sprt
	if *sprtFlag != "" {
		s0, s1, err := parseSPRT(*sprtFlag)
		if err != nil {
			return usage("%v", err)
		}
		t := newSPRT(s0, s1, 0.05, 0.05)
		test = &t
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
	if *position != "" {
		if start, err = engine.ParsePosition(codec.Rules(), o, *position); err != nil {
			return usage("--position: %v", err)
		}
		if out := start.Outcome(); out.Over {
			return usage("--position: the game is over in that position (%s); expected one with moves to play", out.Reason)
		}
		*position = start.(engine.Positioner).Position()
	}
	m := &match{codec: codec, start: start, position: *position, levels: [2]int{*a, *b}, seed: *seed, maxPlies: *maxPlies,
		bookPlies: *book, jobs: *jobs}
	seats := m.seats()
	rounds := (*n + seats - 1) / seats
	var logged []gameResult
	if *logPath != "" {
		head := matchHead{Game: codec.Rules().ID(), Players: *players, Board: *board, Position: *position, A: *a, B: *b,
			Seed: *seed, BookPlies: *book, MaxPlies: *maxPlies}
		if logged, err = readMatchLog(*logPath, head, seats, rounds); err != nil {
			fmt.Fprintf(c.stderr, "pbem match: --log: %v\n", err)
			return 1
		}
		ml, err := openMatchLog(*logPath, head)
		if err != nil {
			fmt.Fprintf(c.stderr, "pbem match: --log: %v\n", err)
			return 1
		}
		defer ml.Close()
		m.logGame = ml.game
	}
	st := newRoundStats(seats)
	decision := ""
	onRound := func(round int, games []gameResult) bool {
		st.add(roundScore(games))
		if test == nil {
			return false
		}
		llr := st.llr(test.s0, test.s1)
		fmt.Fprintf(c.stdout, "%s %d: A %.3f, LLR %.2f (%.2f, %.2f)\n", m.roundName(), round+1, st.mean(), llr, test.lower, test.upper)
		decision = test.decide(llr)
		return decision != ""
	}
	decided := false
	for round := range len(logged) / seats {
		m.first = round + 1
		if decided = onRound(round, logged[round*seats:(round+1)*seats]); decided {
			break
		}
	}
	switch {
	case decided:
		fmt.Fprintf(c.stdout, "%s: %d %ss played before, %d games: the test decided within them\n",
			*logPath, m.first, m.roundName(), m.first*seats)
	case len(logged) > 0:
		fmt.Fprintf(c.stdout, "%s: %d %ss played before, %d games; going on from %s %d\n",
			*logPath, m.first, m.roundName(), m.first*seats, m.roundName(), m.first+1)
	}
	results := logged[:m.first*seats]
	if !decided {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		more, err := m.play(ctx, rounds, onRound)
		if err != nil {
			fmt.Fprintf(c.stderr, "pbem match: %v\n", err)
			return 1
		}
		if ctx.Err() != nil {
			fmt.Fprintf(c.stdout, "interrupted: the %d %ss played before it\n", st.n, m.roundName())
		}
		results = append(results, more...)
	}
	m.report(c, results, st, *stats || test != nil)
	if test != nil {
		verdict := "no decision"
		switch decision {
		case "H1":
			verdict = fmt.Sprintf("H1 (score %g) accepted", test.s1)
		case "H0":
			verdict = fmt.Sprintf("H0 (score %g) accepted", test.s0)
		}
		fmt.Fprintf(c.stdout, "SPRT %g v %g (alpha = beta = 0.05): %s after %d %ss, LLR %.2f (%.2f, %.2f)\n",
			test.s0, test.s1, verdict, st.n, m.roundName(), st.llr(test.s0, test.s1), test.lower, test.upper)
	}
	return 0
}

// match plays bot A against bot B in rounds: each round starts from its own
// random opening and gives A each seat in turn, B every other seat.
type match struct {
	codec notation.Codec
	start engine.State
	// position is the canonical text of start when the games start from a
	// set-up position ("" for the rules' start).
	position  string
	levels    [2]int // of A and B
	seed      uint64
	maxPlies  int
	bookPlies int
	jobs      int
	// first is the number of rounds already played (a match continued
	// from its log): play starts with the round after them.
	first int
	// logGame, if set, is told each game as it ends, before its round is
	// handed over.
	logGame func(i int, r gameResult) error
}

// seats is the number of seats of the game, the number of games of a round.
func (m *match) seats() int { return len(m.start.Sides()) }

// roundName is what a round is called: a pair in a game of two seats.
func (m *match) roundName() string {
	if m.seats() == 2 {
		return "pair"
	}
	return "round"
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
	// timeUp counts the moves of A and of B whose search its time bound
	// stopped before its playouts were spent (level 4 and 5).
	timeUp [2]int
}

// roundScore is A's mean score over the games of a round.
func roundScore(games []gameResult) float64 {
	sum := 0.0
	for _, g := range games {
		sum += g.score
	}
	return sum / float64(len(games))
}

// play plays the rounds from m.first up to rounds on m.jobs workers and
// hands each round, in order, once all its games are over, to onRound;
// when onRound returns true, or when ctx ends (an interrupt), the match
// stops (the games still being played are dropped). It returns the games
// of the rounds it handed over, in order. Each game depends only on the
// seed and its number, so any number of workers gives the same games for
// bots whose moves are reproducible.
func (m *match) play(parent context.Context, rounds int, onRound func(round int, games []gameResult) bool) ([]gameResult, error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	interrupt := parent.Done()
	seats := m.seats()
	n := rounds * seats
	first := m.first * seats
	type done struct {
		i   int
		r   gameResult
		err error
	}
	next := make(chan int)
	out := make(chan done)
	var wg sync.WaitGroup
	for range max(1, min(m.jobs, n-first)) {
		wg.Go(func() {
			for i := range next {
				r, err := m.game(ctx, i)
				out <- done{i, r, err}
			}
		})
	}
	results := make([]gameResult, n)
	have := make([]bool, n)
	sent, pending, round := first, 0, m.first
	stopped := false
	var failed error
	for {
		var send chan int
		if !stopped && sent < n {
			send = next
		}
		if send == nil && pending == 0 {
			break
		}
		select {
		case <-interrupt: // stop with the rounds played so far
			interrupt = nil
			stopped = true
			cancel()
		case send <- sent:
			sent++
			pending++
		case d := <-out:
			pending--
			if parent.Err() != nil { // interrupted: the game may have been cut short
				stopped = true
				cancel()
			}
			if stopped {
				continue
			}
			if d.err != nil {
				failed = fmt.Errorf("game %d: %w", d.i+1, d.err)
				stopped = true
				cancel()
				continue
			}
			if m.logGame != nil {
				if err := m.logGame(d.i, d.r); err != nil {
					failed = err
					stopped = true
					cancel()
					continue
				}
			}
			results[d.i], have[d.i] = d.r, true
			for !stopped && round < rounds && !slices.Contains(have[round*seats:(round+1)*seats], false) {
				if onRound(round, results[round*seats:(round+1)*seats]) {
					stopped = true
					cancel()
				}
				round++
			}
		}
	}
	close(next)
	wg.Wait()
	if failed != nil {
		return nil, failed
	}
	return results[first:max(first, round*seats)], nil
}

// gameSeed derives the seed of one bot in game i.
func (m *match) gameSeed(i, who int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%d/%d", m.seed, i, who)
	return h.Sum64()
}

// opening is the line every game of a round starts from: m.bookPlies
// random moves (a level-0 bot's) from the start, drawn again when they end
// the game.
func (m *match) opening(ctx context.Context, round int) (*engine.Line, error) {
	const tries = 100
	for try := range tries {
		h := fnv.New64a()
		fmt.Fprintf(h, "book/%d/%d/%d", m.seed, round, try)
		p, err := bot.New(0, h.Sum64())
		if err != nil {
			return nil, err
		}
		line := engine.NewLine(m.start)
		for line.Plies() < m.bookPlies && !line.Outcome().Over {
			res, err := p.Search(ctx, line)
			if err != nil {
				return nil, err
			}
			if line, err = line.Play(res.Move); err != nil {
				return nil, fmt.Errorf("the opening's random move is refused: %w", err)
			}
		}
		if !line.Outcome().Over {
			return line, nil
		}
	}
	return nil, fmt.Errorf("%d openings of %d random plies all ended the game; expected fewer --book-plies", tries, m.bookPlies)
}

// game plays game i, of round i / seats: A takes seat i mod seats, B every
// other, from the round's opening.
func (m *match) game(ctx context.Context, i int) (gameResult, error) {
	seats := m.seats()
	line, err := m.opening(ctx, i/seats)
	if err != nil {
		return gameResult{}, err
	}
	var players [2]*bot.Player
	for who := range 2 {
		p, err := bot.New(m.levels[who], m.gameSeed(i, who))
		if err != nil {
			return gameResult{}, err
		}
		players[who] = p
	}
	r := gameResult{seat: i % seats}
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
		if res.TimeUp {
			r.timeUp[who]++
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

func (m *match) report(c *cli, results []gameResult, st *roundStats, stats bool) {
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
	lo, hi := st.interval()
	from := fmt.Sprintf("%d random plies", m.bookPlies)
	if m.position != "" {
		from = fmt.Sprintf("the position %q and %s", m.position, from)
	}
	fmt.Fprintf(w, "%s: A (level %d) vs B (level %d), %d games in %d %ss from %s, seed %d\n",
		m.codec.Rules().ID(), m.levels[0], m.levels[1], n, st.n, m.roundName(), from, m.seed)
	fmt.Fprintf(w, "A: %d wins, %d draws, %d losses\n", win, draw, loss)
	if m.seats() == 2 {
		fmt.Fprintf(w, "pairs by A's points (0, 1/2, 1, 3/2, 2): %v\n", st.counts)
	}
	fmt.Fprintf(w, "A scores %.1f/%d = %.3f (95%% CI %.3f to %.3f over the %ss)\n", total, n, st.mean(), lo, hi, m.roundName())
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
		up := 0
		for _, r := range results {
			up += r.timeUp[who]
		}
		if up > 0 {
			fmt.Fprintf(w, "%s (level %d) stopped by its time bound: %d of %d moves\n", name, m.levels[who], up, len(t))
		}
	}
}
