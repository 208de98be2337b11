package notation

import (
	"fmt"
	"slices"
	"strings"

	"pbem/engine"
)

// Ranked is implemented by codecs of games whose results are written as
// rankings of the sides (rpp: G>R=B) rather than 1-0, 0-1, 1/2-1/2.
type Ranked interface {
	RankedResults() bool
}

func ranked(c Codec) bool {
	r, ok := c.(Ranked)
	return ok && r.RankedResults()
}

// normalize turns ranks into competition ranking (1 + the number of sides
// strictly better), so that rankings compare whatever numbering made them.
func normalize(r []int) []int {
	out := make([]int, len(r))
	for i, x := range r {
		out[i] = 1
		for _, y := range r {
			if y < x {
				out[i]++
			}
		}
	}
	return out
}

// FormatResult writes an outcome as a result token for a game with these
// sides: "*" while it goes on, 1-0 / 0-1 / 1/2-1/2 for two sides, else (or
// when the codec is Ranked) a ranking such as G>R=B (ties in seat order).
func FormatResult(c Codec, sides []string, o engine.Outcome) string {
	if !o.Over {
		return "*"
	}
	if len(sides) == 2 && !ranked(c) {
		switch {
		case o.Rank[0] < o.Rank[1]:
			return "1-0"
		case o.Rank[0] > o.Rank[1]:
			return "0-1"
		}
		return "1/2-1/2"
	}
	idx := make([]int, len(sides))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return o.Rank[a] - o.Rank[b] })
	var b strings.Builder
	for k, i := range idx {
		if k > 0 {
			if o.Rank[i] == o.Rank[idx[k-1]] {
				b.WriteByte('=')
			} else {
				b.WriteByte('>')
			}
		}
		b.WriteString(sides[i])
	}
	return b.String()
}

// ParseResult reads a result token: nil ranks for "*" (unfinished).
func ParseResult(c Codec, sides []string, tok string) ([]int, error) {
	// expected is what a message asks for; built only for a message.
	expected := func() string {
		if ranked(c) || len(sides) != 2 {
			return fmt.Sprintf("a ranking of the sides %s such as %s>%s, or *", strings.Join(sides, " "), sides[0], strings.Join(sides[1:], "="))
		}
		return "1-0, 0-1, 1/2-1/2 or *"
	}
	switch tok {
	case "*":
		return nil, nil
	case "1-0", "0-1", "1/2-1/2":
		if len(sides) != 2 {
			return nil, fmt.Errorf("result %s needs two sides; expected %s", tok, expected())
		}
		switch tok {
		case "1-0":
			return []int{1, 2}, nil
		case "0-1":
			return []int{2, 1}, nil
		}
		return []int{1, 1}, nil
	}
	if !isResult(tok) || tok == "*" {
		return nil, fmt.Errorf("bad result %q; expected %s", tok, expected())
	}
	ranks := make([]int, len(sides))
	rank, group := 1, 0
	for i := 0; i < len(tok); i += 2 {
		if i > 0 && tok[i-1] == '>' {
			rank += group
			group = 0
		}
		s := slices.IndexFunc(sides, func(x string) bool { return strings.EqualFold(x, tok[i:i+1]) })
		if s < 0 {
			return nil, fmt.Errorf("bad result %q: %q is not a side of this game; expected %s", tok, tok[i:i+1], expected())
		}
		if ranks[s] != 0 {
			return nil, fmt.Errorf("bad result %q: side %s is ranked twice; expected %s", tok, sides[s], expected())
		}
		ranks[s] = rank
		group++
	}
	for i, r := range ranks {
		if r == 0 {
			return nil, fmt.Errorf("bad result %q: side %s is not ranked; expected %s", tok, sides[i], expected())
		}
	}
	return ranks, nil
}

// result checks the result token against the [Result] tag, the rules and
// the termination.
func (c *checker) result(r *Record) []*Problem {
	g := c.g
	c.problems = nil
	plies := len(g.Lines) - 1
	tok, err := ParseResult(g.Codec, g.Sides, r.Result)
	if err != nil {
		c.add(r.ResultPos, plies, r.Result, "%v", err)
		return c.problems
	}
	if v, ok := r.Tag("Result"); ok {
		t := r.tag("Result")
		tag, err := ParseResult(g.Codec, g.Sides, v)
		if err != nil {
			c.add(t.Pos, 0, v, "[Result]: %v", err)
		} else if !slices.Equal(normalize(tag), normalize(tok)) {
			c.add(t.Pos, 0, v, "[Result %q] disagrees with the result token %s; expected the same result in both", v, r.Result)
		}
	}
	out := g.Outcome
	term, _ := r.Tag("Termination")
	switch {
	case out.Over:
		if want := FormatResult(g.Codec, g.Sides, out); tok == nil || !slices.Equal(normalize(tok), normalize(out.Rank)) {
			c.add(r.ResultPos, plies, r.Result, "wrong result: the game ended by the rules (%s); expected %s", out.Reason, want)
		}
	case tok == nil:
	case !slices.Contains(terminations, term):
		c.add(r.ResultPos, plies, r.Result, "result %s on a game the rules have not ended needs a [Termination] of resign, agreement, time or forfeit", r.Result)
	case term == "agreement":
		want := engine.Settle(g.Final().State(), "agreement")
		if !slices.Equal(normalize(tok), normalize(want.Rank)) {
			c.add(r.ResultPos, plies, r.Result, "wrong result for an agreement; expected %s", FormatResult(g.Codec, g.Sides, want))
		}
	case term == "resign" && len(g.Sides) == 2 && tok[0] == tok[1]:
		c.add(r.ResultPos, plies, r.Result, "a resignation cannot be a draw; expected 1-0 or 0-1")
	}
	return c.problems
}
