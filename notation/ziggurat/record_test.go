package ziggurat

import (
	"fmt"
	"strings"
	"testing"

	"pbem/notation"
)

// TestRecord checks whole game records with the shared record checker.
func TestRecord(t *testing.T) {
	codec := New()
	lookup := func(id string) (notation.Codec, error) {
		if id != "ziggurat" {
			return nil, fmt.Errorf("unknown game %q", id)
		}
		return codec, nil
	}
	const head = "[Game \"ziggurat\"]\n[South \"Ann\"]\n[North \"Bo\"]\n"
	for _, c := range []struct {
		name, record string
		want         []string // problem lines
		canon        string   // canonical plies of a valid game
	}{{
		name:   "South first, lenient plies",
		record: head + "\n1. qa1-d4 Qf6-e5 2. d4-b6 {takes} Wd6-c5 3. Kb6-b4 *\n",
		canon:  "Qa1-d4 Qf6-e5 Qd4xb6 Wd6-c5 Kb6-b4",
	}, {
		name:   "North first",
		record: head + "[FirstPlayer \"North\"]\n\n1. Qa6-d3 Qa1-b2 2. Qf6-e5 *\n",
		canon:  "Qa6-d3 Qa1-b2 Qf6-e5",
	}, {
		name:   "an illegal ply",
		record: head + "\n1. Qa1-d4 Qf6-e5 2. Qd4xe5 *\n",
		want:   []string{`r.pgn:5:21: game 1, ply 3 "Qd4xe5": illegal: a zig captures a lone zig only one size smaller or larger; did you mean Qd4-c5 or Qd4xb6? (more than one legal ply fits the rest of the game; none is chosen)`},
	}, {
		name:   "a syntax error points at its column",
		record: head + "\n1. Qa1-d4 Qf6e5 *\n",
		want:   []string{`r.pgn:5:14: game 1, ply 2 "Qf6e5": unexpected "e5" at column 4; expected - or x; did you mean Qf6-e5 or Wd6-e5? (more than one legal ply fits the rest of the game; none is chosen)`},
	}} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			var canon []string
			notation.CheckFile("r.pgn", []byte(c.record), lookup, func(ch *notation.Checked) {
				for _, p := range ch.Problems {
					got = append(got, p.String())
				}
				if ch.Game != nil {
					for i, m := range ch.Game.Moves {
						canon = append(canon, codec.Encode(ch.Game.Lines[i].State(), m))
					}
				}
			})
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			if c.canon != "" && strings.Join(canon, " ") != c.canon {
				t.Errorf("plies = %q, want %q", strings.Join(canon, " "), c.canon)
			}
		})
	}
}
