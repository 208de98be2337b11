package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"pbem/engine/bot"
	"pbem/notation"
	"pbem/referee"
	"pbem/referee/analysis"
)

// analyseCmd is pbem analyse (or analyze, as name says): every game of a
// record file annotated by the computer player (referee/analysis).
func analyseCmd(name string) func(c *cli, args []string) int {
	return func(c *cli, args []string) int {
		fs := c.flags(name)
		level := fs.Int("level", 3, fmt.Sprintf("the computer player's level `N`, 1 to %d (1 to 4: the same annotation every run)", bot.MaxLevel))
		out := fs.String("out", "", "write the annotated record to `FILE` (default: standard output)")
		side := fs.String("side", "", "analyse only the plies of `SIDE` (as the game names it; default: every side)")
		seed := fs.Uint64("seed", analysis.DefaultSeed, "the seed `S` of the searches")
		plyTime := fs.Duration("ply-time", analysis.DefaultPlyTime, "bound the searches of one ply to `D`")
		files, code, done := c.parse(fs, args)
		if done {
			return code
		}
		errorf := func(format string, args ...any) int {
			fmt.Fprintf(c.stderr, "pbem %s: %s\n", name, fmt.Sprintf(format, args...))
			return 2
		}
		if len(files) != 1 {
			return errorf("expected one record file (- for standard input), got %d", len(files))
		}
		if *level < 1 || *level > bot.MaxLevel {
			return errorf("--level %d: expected 1 to %d (level 0 moves at random and cannot judge)", *level, bot.MaxLevel)
		}
		if *plyTime <= 0 {
			return errorf("--ply-time %s: expected a positive duration, such as 30s", *plyTime)
		}
		file, data, err := c.read(files[0])
		if err != nil {
			return errorf("%v", err)
		}
		var games []*notation.Checked
		invalid := false
		notation.CheckFile(file, data, referee.Lookup, func(ch *notation.Checked) {
			for _, p := range ch.Problems {
				fmt.Fprintln(c.stderr, p)
			}
			invalid = invalid || !ch.Valid()
			games = append(games, ch)
		})
		if invalid {
			fmt.Fprintf(c.stderr, "pbem %s: %s has invalid games (above); expected records that pbem check accepts\n", name, file)
			return 1
		}
		if len(games) == 0 {
			return errorf("%s holds no game", file)
		}
		var buf bytes.Buffer
		for _, ch := range games {
			o := analysis.Options{Level: *level, Seed: *seed, PlyTime: *plyTime}
			if *side != "" {
				i := -1
				for k, s := range ch.Game.Sides {
					if strings.EqualFold(s, *side) {
						i = k
					}
				}
				if i < 0 {
					return errorf("game %d has no side %q; its sides: %s", ch.Index, *side, strings.Join(ch.Game.Sides, ", "))
				}
				o.Side = &i
			}
			start := time.Now()
			text, rep, err := analysis.Annotate(context.Background(), ch.Game, referee.Lookup, o)
			if err != nil {
				return errorf("game %d: %v", ch.Index, err)
			}
			buf.WriteString(text)
			for _, sd := range rep.Sides {
				fmt.Fprintf(c.stderr, "game %d, %s: %d plies, %d mistakes, %d blunders, average loss %.3f\n",
					ch.Index, sd.Side, sd.Plies, sd.Mistakes, sd.Blunders, sd.AverageLoss())
			}
			fmt.Fprintf(c.stderr, "game %d analysed at level %d in %s\n", ch.Index, *level, time.Since(start).Round(time.Millisecond))
			if rep.TimeUp > 0 {
				fmt.Fprintf(c.stderr, "game %d: %d plies reached --ply-time %s: their scores depend on the machine's speed\n", ch.Index, rep.TimeUp, *plyTime)
			}
		}
		if *out == "" {
			c.stdout.Write(buf.Bytes())
			return 0
		}
		if err := writeFileAtomic(*out, buf.Bytes()); err != nil {
			return errorf("%v", err)
		}
		return 0
	}
}
