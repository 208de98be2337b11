package main

import (
	"fmt"

	"pbem/referee"
)

func runGames(c *cli, args []string) int {
	fs := c.flags("games")
	pos, code, done := c.parse(fs, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(c.stderr, "pbem games: takes no arguments\n")
		return 2
	}
	for _, g := range referee.Games() {
		fmt.Fprintf(c.stdout, "%-11s %s\n", g.Rules().ID(), g.Rules().Summary())
	}
	return 0
}
