package main

import (
	"fmt"

	"pbem/engine"
	"pbem/notation"
	"pbem/referee"
)

func runShow(c *cli, args []string) int {
	fs := c.flags("show")
	game := fs.Int("game", 1, "the game `N` of the file (1 = first)")
	ply := fs.Int("ply", -1, "show the board after ply `P` (0 = the start; default: the end)")
	only := fs.Bool("position", false, "print only the position text (one line, docs/NOTATION.md \"Positions\"), for scripts")
	files, code, done := c.parse(fs, args)
	if done {
		return code
	}
	if len(files) != 1 {
		fmt.Fprintf(c.stderr, "pbem show: expected one record file, got %d\n", len(files))
		return 2
	}
	name, data, err := c.read(files[0])
	if err != nil {
		fmt.Fprintf(c.stderr, "pbem show: %v\n", err)
		return 2
	}
	var found *notation.Checked
	notation.CheckFile(name, data, referee.Lookup, func(ch *notation.Checked) {
		if ch.Index == *game {
			found = ch
		}
	})
	if found == nil {
		fmt.Fprintf(c.stderr, "pbem show: %s has no game %d\n", name, *game)
		return 2
	}
	for _, p := range found.Problems {
		fmt.Fprintln(c.stderr, p)
	}
	if found.Game == nil {
		return 1
	}
	g := found.Game
	last := len(g.Lines) - 1
	p := *ply
	if p < 0 {
		p = last
	}
	if p > last {
		fmt.Fprintf(c.stderr, "pbem show: game %d has %d legal plies; expected --ply 0 to %d\n", *game, last, last)
		return 2
	}
	text, key, hasText := engine.Position(g.Lines[p].State())
	if *only {
		if !hasText {
			fmt.Fprintf(c.stderr, "pbem show: %s has no position notation\n", g.Codec.Rules().ID())
			return 2
		}
		fmt.Fprintln(c.stdout, text)
		if len(found.Problems) > 0 {
			return 1
		}
		return 0
	}
	if p > 0 {
		fmt.Fprintf(c.stdout, "game %d after ply %d (%s)\n", *game, p, g.Record.Main.Plies[p-1].Canon)
	} else {
		fmt.Fprintf(c.stdout, "game %d, start position\n", *game)
	}
	fmt.Fprintln(c.stdout, g.Lines[p].State().Render(-1))
	if hasText {
		fmt.Fprintf(c.stdout, "position %s\nkey %016x\n", text, key)
	}
	if o := g.Lines[p].Outcome(); o.Over {
		fmt.Fprintf(c.stdout, "result %s (%s)\n", notation.FormatResult(g.Codec, g.Sides, o), o.Reason)
	}
	if len(found.Problems) > 0 {
		return 1
	}
	return 0
}
