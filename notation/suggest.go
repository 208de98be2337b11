package notation

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"pbem/engine"
)

// Suggestion is a legal ply close to one that was written.
type Suggestion struct {
	Ply  string // canonical spelling
	Move engine.Move
	// Dist is the number of edits (a character changed, transposed,
	// missing or extra; case, piece letters and "-" for "x" are free) from
	// what was written.
	Dist int
	// SameFrom and SameTo: it starts (ends) on the square the written ply
	// starts (ends) on.
	SameFrom, SameTo bool
}

// MaxSuggestions is the most suggestions a problem line offers.
const MaxSuggestions = 5

// maxDist is the most edits a suggestion may be from what was written
// unless it shares its first or last square.
const maxDist = 2

// Suggest returns the legal plies of s closest to text, best first, at most
// n: those one or two edits away, and those from the same square or to the
// same square as text. It returns none when s is over or text is too long
// to be a ply.
func Suggest(codec Codec, s engine.State, text string, n int) []Suggestion {
	if n <= 0 || len(text) > MaxPly || s.Outcome().Over {
		return nil
	}
	w, _ := Typographic(text)
	w = skeleton(w)
	from, to := ends(w)
	var out []Suggestion
	for _, m := range s.Legal() {
		canon := codec.Encode(s, m)
		c := skeleton(canon)
		d := min(osa(w, c), osa(w, skeleton(dropLetters(canon))))
		f, t := ends(c)
		sg := Suggestion{Ply: canon, Move: m, Dist: d, SameFrom: from != "" && f == from, SameTo: to != "" && t == to}
		if d <= maxDist || sg.SameFrom || sg.SameTo {
			out = append(out, sg)
		}
	}
	slices.SortStableFunc(out, func(a, b Suggestion) int {
		if c := cmp.Compare(a.Dist, b.Dist); c != 0 {
			return c
		}
		if c := cmp.Compare(score(b), score(a)); c != 0 {
			return c
		}
		return strings.Compare(a.Ply, b.Ply)
	})
	return out[:min(len(out), n)]
}

func score(s Suggestion) int {
	n := 0
	if s.SameFrom {
		n++
	}
	if s.SameTo {
		n++
	}
	return n
}

// skeleton is a ply as compared: lower case, without blanks or a trailing
// "*" (rpp), "x" as "-" (input may write "-" for a capture).
func skeleton(p string) string {
	b := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == ' ' || c == '\t':
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		if c == 'x' {
			c = '-'
		}
		b = append(b, c)
	}
	for len(b) > 0 && b[len(b)-1] == '*' {
		b = b[:len(b)-1]
	}
	return string(b)
}

// dropLetters removes the piece letters of a canonical ply (an upper-case
// letter before a square or "@"), which input may leave out.
func dropLetters(p string) string {
	b := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c >= 'A' && c <= 'Z' && i+1 < len(p) && (p[i+1] == '@' || i+2 < len(p) && p[i+1] >= 'a' && p[i+1] <= 'z' && p[i+2] >= '0' && p[i+2] <= '9') {
			continue
		}
		b = append(b, c)
	}
	return string(b)
}

// ends returns the first and last squares (a lower-case letter and digits)
// of a skeleton, "" when it has none.
func ends(p string) (first, last string) {
	for i := 0; i+1 < len(p); i++ {
		if p[i] < 'a' || p[i] > 'z' || p[i+1] < '0' || p[i+1] > '9' || i > 0 && p[i-1] >= 'a' && p[i-1] <= 'z' {
			continue
		}
		j := i + 2
		for j < len(p) && p[j] >= '0' && p[j] <= '9' {
			j++
		}
		if first == "" {
			first = p[i:j]
		}
		last = p[i:j]
		i = j - 1
	}
	return first, last
}

// osa is the optimal string alignment distance of a and b: the edits
// (change, insert, delete, transpose two neighbours) that make b of a.
func osa(a, b string) int {
	if len(a) > MaxPly || len(b) > MaxPly {
		return MaxPly
	}
	// Three rows: the one before the previous, the previous, the current.
	rows := make([]int, 3*(len(b)+1))
	pp, p, cur := rows[:len(b)+1], rows[len(b)+1:2*(len(b)+1)], rows[2*(len(b)+1):]
	for j := range p {
		p[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(p[j]+1, cur[j-1]+1, p[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, pp[j-2]+1)
			}
			cur[j] = d
		}
		pp, p, cur = p, cur, pp
	}
	return p[len(b)]
}

// play reads text as the next ply of at and plays it.
func (c *checker) play(at *engine.Line, text string) (engine.Move, *engine.Line, error) {
	s := at.State()
	var (
		m     engine.Move
		after engine.State
		next  *engine.Line
		err   error
	)
	if r, ok := c.g.Codec.(Resolver); ok {
		m, after, err = r.DecodePlay(s, text)
	} else {
		m, err = c.g.Codec.Decode(s, text)
	}
	switch {
	case err != nil:
	case after != nil:
		next, err = at.Played(after)
	default:
		next, err = at.Play(m)
	}
	return m, next, err
}

// reach plays plies from at and returns how many of them are legal, and
// the line after the last of those.
func (c *checker) reach(plies []*Ply, at *engine.Line) (int, *engine.Line) {
	for k, p := range plies {
		if at.Outcome().Over {
			return k, at
		}
		_, next, err := c.play(at, p.Text)
		if err != nil {
			return k, at
		}
		at = next
	}
	return len(plies), at
}

// resultAgrees reports whether the record's result can end the game at
// final: the one the rules give when they ended it, else any result that
// a [Termination] explains (or "*").
func (c *checker) resultAgrees(final *engine.Line) bool {
	r, g := c.g.Record, c.g
	tok, err := ParseResult(g.Codec, g.Sides, r.Result)
	if err != nil {
		return true // reported as such, whatever the plies
	}
	if out := final.Outcome(); out.Over {
		return tok != nil && slices.Equal(normalize(tok), normalize(out.Rank))
	}
	term, _ := r.Tag("Termination")
	return tok == nil || slices.Contains(terminations, term)
}

// candidate is a suggestion tried against the rest of its line.
type candidate struct {
	Suggestion
	next  *engine.Line // the line after it
	reach int          // plies of the rest legal after it
	full  bool         // the whole rest (and, in the main line, the result)
}

// suggestPool is how many of the nearest plies are tried against the rest
// of the line.
const suggestPool = 12

// repair adds to pr the legal plies closest to its ply, those with which
// the rest of the line plays first, and reports the one to go on with: the
// only one with which the rest is legal (pr.Repair), or else the only one
// that plays furthest into the rest. main: the line is the main line,
// whose end must agree with the result.
func (c *checker) repair(pr *Problem, rest []*Ply, at *engine.Line, main bool) (candidate, bool) {
	sugg := Suggest(c.g.Codec, at.State(), pr.ply.Text, suggestPool)
	if len(sugg) == 0 {
		return candidate{}, false
	}
	cands := make([]candidate, 0, len(sugg))
	for _, sg := range sugg {
		next, err := at.Play(sg.Move)
		if err != nil {
			continue
		}
		k, final := c.reach(rest, next)
		full := k == len(rest) && (!main || c.resultAgrees(final))
		cands = append(cands, candidate{Suggestion: sg, next: next, reach: k, full: full})
	}
	if len(cands) == 0 {
		return candidate{}, false
	}
	slices.SortStableFunc(cands, func(a, b candidate) int {
		if a.full != b.full {
			if a.full {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.Dist, b.Dist)
	})
	for _, cd := range cands[:min(len(cands), MaxSuggestions)] {
		pr.Suggestions = append(pr.Suggestions, cd.Ply)
	}
	pr.Msg += "; did you mean " + orList(pr.Suggestions) + "?"
	best := cands[0]
	switch {
	case best.full && (len(cands) == 1 || !cands[1].full):
		pr.Repair = best.Ply
		if len(rest) == 0 {
			pr.Msg += " only " + best.Ply + " ends the game as its result says"
		} else {
			pr.Msg += " with " + best.Ply + " the remaining " + plural(len(rest), "ply is", "plies are") + " legal"
		}
		return best, true
	case best.full:
		pr.Msg += " (more than one of them fits the rest of the game; none is chosen)"
		return candidate{}, false
	}
	// None fits the whole rest: go on with the one that plays furthest, if
	// only one does, to find what else is wrong.
	far := candidate{reach: -1}
	ties := 0
	for _, cd := range cands {
		switch {
		case cd.reach > far.reach:
			far, ties = cd, 1
		case cd.reach == far.reach:
			ties++
		}
	}
	if far.reach == 0 || ties > 1 {
		return candidate{}, false
	}
	pr.Msg += " with " + far.Ply + " the next " + plural(far.reach, "ply is", "plies are") + " legal; checking goes on from there"
	return far, true
}

// orList writes "a", "a or b", "a, b or c".
func orList(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// FixComment is the comment Fix puts after a ply it repaired, with the
// text as written.
const FixComment = "pbem --fix: written %s"

// Fix makes the repairs of a checked game (checked with canonical
// spellings, as CheckFile does) in its record, when every problem of the
// game has one: each repaired ply is written as its repair, followed by a
// comment that quotes what was written. It returns the problems repaired,
// or false (and changes nothing) when some problem has no unique repair.
func (ch *Checked) Fix() ([]*Problem, bool) {
	if ch.Game == nil || len(ch.Problems) == 0 {
		return nil, false
	}
	for _, p := range ch.Problems {
		if p.Repair == "" || p.ply == nil || p.ply.Canon != p.Repair {
			return nil, false
		}
	}
	g := ch.Game
	if g.repaired == nil && len(g.Lines) <= len(g.Record.Main.Plies) {
		return nil, false // the main line was not checked to its end
	}
	for _, p := range ch.Problems {
		p.ply.Comments = append([]string{fmt.Sprintf(FixComment, p.ply.Text)}, p.ply.Comments...)
		p.Repaired = true
	}
	if r := g.repaired; r != nil {
		g.Lines, g.Moves, g.Outcome, g.repaired = r.lines, r.moves, r.outcome, nil
	}
	return ch.Problems, true
}
