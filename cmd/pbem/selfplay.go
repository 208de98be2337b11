package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"strconv"

	"pbem/engine"
	"pbem/notation"
	"pbem/referee"
)

func runSelfplay(c *cli, args []string) int {
	fs := c.flags("selfplay")
	n := fs.Int("n", 1, "number of games")
	seed := fs.Uint64("seed", 1, "random seed (the same seed gives the same games)")
	players := fs.Int("players", 0, "number of seats (rpp; 0 = the game's default)")
	board := fs.String("board", "", "board name (rpp; default for the number of players)")
	maxPlies := fs.Int("max-plies", 300, "stop a game unfinished (*) after `M` plies")
	pos, code, done := c.parse(fs, args)
	if done {
		return code
	}
	if *n < 0 {
		fmt.Fprintf(c.stderr, "pbem selfplay: -n %d: expected a number of games, 0 or more\n", *n)
		return 2
	}
	if *maxPlies < 1 {
		fmt.Fprintf(c.stderr, "pbem selfplay: --max-plies %d: expected 1 or more\n", *maxPlies)
		return 2
	}
	if len(pos) != 1 {
		fmt.Fprintf(c.stderr, "pbem selfplay: expected one game id (see pbem games), got %d arguments\n", len(pos))
		return 2
	}
	codec, err := referee.Lookup(pos[0])
	if err != nil {
		fmt.Fprintf(c.stderr, "pbem selfplay: %v\n", err)
		return 2
	}
	o := engine.Options{Players: *players, Board: *board}
	if _, err := codec.Rules().Start(o); err != nil {
		fmt.Fprintf(c.stderr, "pbem selfplay: %v\n", err)
		return 2
	}
	w := bufio.NewWriter(c.stdout)
	defer w.Flush()
	for i := range *n {
		g := selfplay(codec, o, *seed, i, *maxPlies)
		if err := notation.Write(w, g); err != nil {
			fmt.Fprintf(c.stderr, "pbem selfplay: %v\n", err)
			return 2
		}
	}
	return 0
}

// randomMove draws a legal move: from the game's Sampler when it has one
// (turns of many actions), else uniformly from Legal.
func randomMove(s engine.State, r *rand.Rand) engine.Move {
	if smp, ok := s.(engine.Sampler); ok {
		return smp.RandomMove(r)
	}
	moves := s.Legal()
	return moves[r.IntN(len(moves))]
}

// selfplay plays game i of a seeded series with random legal moves. Games
// whose first player is drawn at random (ziggurat, rpp) draw it too.
func selfplay(codec notation.Codec, o engine.Options, seed uint64, i, maxPlies int) *notation.Game {
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	sides, _ := codec.Rules().Sides(o)
	if f := r.IntN(len(sides)); f != 0 {
		o2 := o
		o2.First = f
		if _, err := codec.Rules().Start(o2); err == nil {
			o = o2
		}
	}
	tags := []notation.Tag{
		{Name: "Event", Value: "pbem selfplay"},
		{Name: "Site", Value: "pbem"},
		{Name: "Date", Value: "????.??.??"},
		{Name: "Round", Value: strconv.Itoa(i + 1)},
	}
	for _, s := range sides {
		tags = append(tags, notation.Tag{Name: s, Value: "random"})
	}
	b, err := notation.NewBuilder(codec, o, tags)
	if err != nil {
		panic(err) // Start succeeded above
	}
	for ply := 0; ply < maxPlies && !b.Line().Outcome().Over; ply++ {
		if err := b.Play(randomMove(b.Line().State(), r)); err != nil {
			panic(fmt.Sprintf("selfplay: generated move refused: %v", err))
		}
	}
	b.Finish(nil, "")
	return b.Game()
}
