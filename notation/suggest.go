package notation

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"pbem/engine"
	"pbem/internal/english"
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

// MaxRanked is the most legal plies Suggest spells and compares with what
// was written: a position may have tens of thousands of turns (castles:
// 18,810 in one, 16-27 ms to rank them all), and a reply to an illegal
// ply, which anyone with a token can send, should not cost that. Beyond
// it, plies evenly spread over the legal ones are ranked.
const MaxRanked = 2000

// Suggest returns the legal plies of s closest to text, best first, at most
// n: those one or two edits away, and those from the same square or to the
// same square as text. It returns none when s is over or text is too long
// to be a ply. It looks at no more than MaxRanked of the legal plies.
func Suggest(codec Codec, s engine.State, text string, n int) []Suggestion {
	if n <= 0 {
		return nil
	}
	var out []Suggestion
	for _, sg := range rankSome(codec, s, text, MaxRanked) {
		if sg.near() {
			out = append(out, sg)
		}
	}
	return out[:min(len(out), n)]
}

// near reports whether a suggestion is close enough to what was written to
// be offered.
func (s Suggestion) near() bool { return s.Dist <= maxDist || s.SameFrom || s.SameTo }

// rank returns every legal ply of s, closest to text first (see Suggest).
func rank(codec Codec, s engine.State, text string) []Suggestion {
	return rankSome(codec, s, text, 0)
}

// rankSome is rank over at most limit legal plies, evenly spread over
// them (limit 0: all).
func rankSome(codec Codec, s engine.State, text string, limit int) []Suggestion {
	if len(text) > MaxPly || s.Outcome().Over {
		return nil
	}
	w, _ := Typographic(text)
	w = skeleton(w)
	from, to := ends(w)
	var wa []string
	if strings.IndexByte(w, ',') >= 0 {
		wa = strings.Split(w, ",")
	}
	legal := s.Legal()
	if limit > 0 && len(legal) > limit {
		some := make([]engine.Move, limit)
		for i := range some {
			some[i] = legal[i*len(legal)/limit]
		}
		legal = some
	}
	out := make([]Suggestion, 0, len(legal))
	var ds dister
	ds.count(w)
	for _, m := range legal {
		canon := codec.Encode(s, m)
		c := skeleton(canon)
		// Reordering keeps the characters: their counts bound what the
		// reordered spellings can gain.
		lb := ds.bound(c)
		d := distCap
		if lb < distCap {
			d = ds.osa(w, c)
		}
		if d > lb {
			bare := skeleton(dropLetters(canon))
			if bare != c {
				d = min(d, ds.osa(w, bare))
			}
			if wa != nil && d > max(lb, 1) {
				// The same actions in another order may be the same turn.
				d = min(d, ds.osa(w, align(&ds, wa, c)))
				if bare != c {
					d = min(d, ds.osa(w, align(&ds, wa, bare)))
				}
			}
		}
		f, t := ends(c)
		out = append(out, Suggestion{Ply: canon, Move: m, Dist: d, SameFrom: from != "" && f == from, SameTo: to != "" && t == to})
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
	return out
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

// align reorders the actions of turn c after its first to follow the
// written actions wa as closely as it can: each written action in turn
// takes the closest action of c not yet taken (the placements of a
// castles turn, for one, may come in any order).
func align(ds *dister, wa []string, c string) string {
	ca := strings.Split(c, ",")
	if len(ca) < 3 {
		return c
	}
	out := make([]string, 1, len(ca))
	out[0] = ca[0]
	used := make([]bool, len(ca))
	for _, a := range wa[1:] {
		best, bd := -1, 0
		for j := 1; j < len(ca); j++ {
			if !used[j] {
				if d := ds.osa(a, ca[j]); best < 0 || d < bd {
					best, bd = j, d
				}
			}
		}
		if best < 0 {
			break
		}
		used[best] = true
		out = append(out, ca[best])
	}
	for j := 1; j < len(ca); j++ {
		if !used[j] {
			out = append(out, ca[j])
		}
	}
	return strings.Join(out, ",")
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
		if p[i] < 'a' || p[i] > 'z' || p[i+1] < '0' || p[i+1] > '9' {
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

// distCap is where distances stop counting: a ply that far from what was
// written is no suggestion, and ranks only by its squares.
const distCap = 5

// dister computes optimal string alignment distances (the edits - change,
// insert, delete, transpose two neighbours - that make b of a), up to
// distCap, in rows it reuses.
type dister struct {
	rows []int
	hist [256]int // of the text written (count)
	n    int      // its length
	tmp  [256]int
}

// count notes the characters of the text written.
func (ds *dister) count(w string) {
	ds.hist, ds.n = [256]int{}, len(w)
	for i := 0; i < len(w); i++ {
		ds.hist[w[i]]++
	}
}

// bound is a lower bound of the distance from the text written to c, or
// any reordering of c's characters: an edit changes the count of at most
// two characters by one each.
func (ds *dister) bound(c string) int {
	ds.tmp = ds.hist
	for i := 0; i < len(c); i++ {
		ds.tmp[c[i]]--
	}
	n := 0
	for i := 0; i < len(c); i++ {
		if x := ds.tmp[c[i]]; x < 0 {
			n -= x
			ds.tmp[c[i]] = 0
		}
	}
	// n characters of c are not written; the written ones not in c are
	// the rest of the written text. A change mends one of each, an
	// insertion or deletion one.
	return max(n, ds.n-(len(c)-n))
}

func (ds *dister) osa(a, b string) int {
	if len(a)-len(b) >= distCap || len(b)-len(a) >= distCap {
		return distCap
	}
	const far = distCap + 1 // a cell outside the band
	n := len(b) + 1
	if cap(ds.rows) < 3*n {
		ds.rows = make([]int, 3*n)
	}
	rows := ds.rows[:3*n]
	// Three rows: the one before the previous, the previous, the current;
	// only the cells within distCap of the diagonal count.
	pp, p, cur := rows[:n], rows[n:2*n], rows[2*n:]
	for j := range p {
		p[j] = min(j, far)
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-distCap), min(len(b), i+distCap)
		cur[lo-1] = far
		if lo == 1 {
			cur[0] = min(i, far)
		}
		low := cur[lo-1]
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(p[j]+1, cur[j-1]+1, p[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, pp[j-2]+1)
			}
			cur[j] = d
			low = min(low, d)
		}
		if hi+1 < n {
			cur[hi+1] = far
		}
		if low >= distCap {
			return distCap
		}
		pp, p, cur = p, cur, pp
	}
	return min(p[len(b)], distCap)
}

// osa is dister.osa with rows of its own.
func osa(a, b string) int {
	var ds dister
	return ds.osa(a, b)
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
		text := p.Text
		if t, ok := c.override[p]; ok {
			text = t
		}
		_, next, err := c.play(at, text)
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

// repair adds to pr the legal plies closest to its ply, those with which
// the rest of the line plays first, and reports the one to go on with: the
// only legal ply with which the rest is legal (pr.Repair), or else the only
// one that plays furthest into the rest. main: the line is the main line,
// whose end must agree with the result.
//
// Every legal ply is tried, not only the close ones: a repair is made only
// when no other legal ply fits the rest of the game, so that it cannot be
// a wrong one that happens to be closer to what was written.
func (c *checker) repair(pr *Problem, plies []*Ply, i int, lines []*engine.Line, main bool) (candidate, bool) {
	at, rest := lines[i], plies[i+1:]
	all := rank(c.g.Codec, at.State(), pr.ply.Text)
	cands := make([]candidate, 0, len(all))
	fits, far, ties := 0, candidate{reach: -1}, 0
	// Plies that reach the same position are one repair (the closest
	// spelling stands for them): the game after them is the same.
	seen := make(map[string]bool, len(all))
	for _, sg := range all {
		next, err := at.Play(sg.Move)
		if err != nil {
			continue
		}
		if key := next.State().Key(); seen[key] {
			continue
		} else {
			seen[key] = true
		}
		k, final := c.reach(rest, next)
		cd := candidate{Suggestion: sg, next: next, reach: k, full: k == len(rest) && (!main || c.resultAgrees(final))}
		if cd.full {
			fits++
		}
		switch {
		case k > far.reach:
			far, ties = cd, 1
		case k == far.reach:
			ties++
		}
		cands = append(cands, cd)
	}
	if fits != 1 {
		// Which comes first is up to the distance only when the rest of
		// the game does not single one out.
		c.respell(cands, at, pr.ply.Text)
	}
	// Offered: the plies that fit the rest (any of them when only one
	// does), then the close ones.
	shown := cands[:0:0]
	for _, cd := range cands {
		if cd.full && (fits == 1 || cd.near()) {
			shown = append(shown, cd)
		}
	}
	for _, cd := range cands {
		if !cd.full && cd.near() {
			shown = append(shown, cd)
		}
	}
	if len(shown) == 0 {
		return candidate{}, false
	}
	for _, cd := range shown[:min(len(shown), MaxSuggestions)] {
		pr.Suggestions = append(pr.Suggestions, cd.Ply)
	}
	pr.Msg += "; did you mean " + orList(pr.Suggestions) + "?"
	best := shown[0]
	switch {
	case best.full && fits == 1:
		if k, alt, ok := c.earlier(plies, i, lines, main); ok {
			// The error may be an earlier ply that was legal but not
			// the one meant: no repair is sure.
			pr.Msg += fmt.Sprintf(" with %s the remaining %s legal, but so are they with ply %d as %s; none is chosen", best.Ply, english.Count(len(rest), "ply is", "plies are"), pr.Ply-i+k, alt)
			return best, true
		}
		pr.Repair = best.Ply
		if len(rest) == 0 {
			pr.Msg += " only " + best.Ply + " ends the game as its result says"
		} else {
			pr.Msg += " with " + best.Ply + " the remaining " + english.Count(len(rest), "ply is", "plies are") + " legal"
		}
		return best, true
	case fits > 1:
		pr.Msg += " (more than one legal ply fits the rest of the game; none is chosen)"
		return candidate{}, false
	}
	// None fits the whole rest: go on with the one that plays furthest, if
	// only one does, to find what else is wrong.
	if far.reach <= 0 || ties > 1 {
		return candidate{}, false
	}
	pr.Msg += " with " + far.Ply + " the next " + english.Count(far.reach, "ply is", "plies are") + " legal; checking goes on from there"
	return far, true
}

// editAlphabet is what the edits of respell put in a ply (the upper-case
// letters of the ply written are added).
const editAlphabet = "abcdefghijklmnopqrs0123456789-x^@,>:*"

// respell finds the candidates one edit away from text as written: a turn
// can often be spelt several ways (the same actions in another order, or
// other actions that leave the same position), and the engine lists each
// position once, in one spelling that may be far from the one written.
// Each text one change, insertion, deletion or transposition away that
// reads as a legal ply gives its position's candidate distance 1 and that
// spelling; the candidates are then sorted again, closest first.
func (c *checker) respell(cands []candidate, at *engine.Line, text string) {
	if len(text) > MaxPly || len(cands) == 0 || cands[0].Dist <= 1 && (len(cands) == 1 || cands[1].Dist > 1) {
		return
	}
	byKey := make(map[string]int, len(cands))
	for i, cd := range cands {
		byKey[cd.next.State().Key()] = i
	}
	alphabet := editAlphabet
	for i := 0; i < len(text); i++ {
		if text[i] >= 'A' && text[i] <= 'Z' && strings.IndexByte(alphabet, text[i]) < 0 {
			alphabet += text[i : i+1]
		}
	}
	s := at.State()
	changed := false
	try := func(t string) {
		m, next, err := c.play(at, t)
		if err != nil {
			return
		}
		if i, ok := byKey[next.State().Key()]; ok && cands[i].Dist > 1 {
			cd := &cands[i]
			cd.Dist, cd.Ply, cd.Move, cd.next, changed = 1, c.g.Codec.Encode(s, m), m, next, true
		}
	}
	b := []byte(text)
	for i := 0; i <= len(b); i++ {
		if i < len(b) {
			try(string(b[:i]) + string(b[i+1:])) // deleted
			if i+1 < len(b) && b[i] != b[i+1] {
				b[i], b[i+1] = b[i+1], b[i]
				try(string(b)) // transposed
				b[i], b[i+1] = b[i+1], b[i]
			}
		}
		for j := 0; j < len(alphabet); j++ {
			ch := alphabet[j]
			try(string(b[:i]) + string(ch) + string(b[i:])) // inserted
			if i < len(b) && b[i] != ch {
				old := b[i]
				b[i] = ch
				try(string(b)) // changed
				b[i] = old
			}
		}
	}
	if changed {
		slices.SortStableFunc(cands, func(a, b candidate) int {
			if c := cmp.Compare(a.Dist, b.Dist); c != 0 {
				return c
			}
			return cmp.Compare(score(b.Suggestion), score(a.Suggestion))
		})
	}
}

// lineFix is an illegal ply of a line that checking went on past, with
// the candidate it went on with.
type lineFix struct {
	pr   *Problem
	i    int // index of the ply in its line
	cand candidate
}

// confirm makes repairs of the plies a line was checked past without one
// (several legal plies played into the rest, none all of it) when, with
// the repairs after it read in place of what was written, only the
// candidate checking went on with makes the rest legal. fixes are in line
// order; the line was checked to its end.
func (c *checker) confirm(fixes []lineFix, plies []*Ply, lines []*engine.Line, main bool) {
	for n := len(fixes) - 1; n >= 0; n-- {
		f := fixes[n]
		if f.pr.Repair != "" {
			continue
		}
		later := fixes[n+1:]
		c.override = make(map[*Ply]string, len(later))
		for _, g := range later {
			if g.pr.Repair == "" {
				c.override = nil
				return // a later ply has no sure repair
			}
			c.override[g.pr.ply] = g.pr.Repair
		}
		ok := c.onlyFit(plies, f.i, lines, main, f.cand)
		if ok {
			if _, _, alt := c.earlier(plies, f.i, lines, main); alt {
				ok = false
			}
		}
		c.override = nil
		if !ok {
			return
		}
		f.pr.Repair = f.cand.Ply
		repairs := "the repair"
		if len(later) > 1 {
			repairs = "the repairs"
		}
		f.pr.Msg += fmt.Sprintf("; with %s and %s after it the remaining %s legal", f.cand.Ply, repairs, english.Count(len(plies)-f.i-1, "ply is", "plies are"))
	}
}

// onlyFit reports whether cand is the only legal ply in place of plies[i]
// (by the position it leads to) with which the rest of the line is legal.
func (c *checker) onlyFit(plies []*Ply, i int, lines []*engine.Line, main bool, cand candidate) bool {
	at, rest := lines[i], plies[i+1:]
	want := cand.next.State().Key()
	seen := map[string]bool{}
	fits := 0
	for _, sg := range rank(c.g.Codec, at.State(), plies[i].Text) {
		next, err := at.Play(sg.Move)
		if err != nil {
			continue
		}
		key := next.State().Key()
		if seen[key] {
			continue
		}
		seen[key] = true
		if k, final := c.reach(rest, next); k == len(rest) && (!main || c.resultAgrees(final)) {
			if key != want {
				return false
			}
			fits++
		}
	}
	return fits == 1
}

// backPlies is how many plies before an illegal one earlier tries.
const backPlies = 16

// earlier looks for another explanation of the illegal ply plies[i]: an
// earlier ply (at most backPlies before it) that was legal as written, but
// with a ply one or two edits from what was written in its place the rest
// of the line,
// plies[i] included, is legal. It returns that ply's index and spelling.
func (c *checker) earlier(plies []*Ply, i int, lines []*engine.Line, main bool) (int, string, bool) {
	for k := i - 1; k >= max(0, i-backPlies); k-- {
		before, written := lines[k], lines[k+1].State().Key()
		for _, sg := range rank(c.g.Codec, before.State(), plies[k].Text) {
			if sg.Dist > maxDist {
				break // ranked closest first
			}
			next, err := before.Play(sg.Move)
			if err != nil || next.State().Key() == written {
				continue
			}
			if n, final := c.reach(plies[k+1:], next); n == len(plies)-k-1 && (!main || c.resultAgrees(final)) {
				return k, sg.Ply, true
			}
		}
	}
	return 0, "", false
}

// orList writes "a", "a or b", "a, b or c".
func orList(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
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
