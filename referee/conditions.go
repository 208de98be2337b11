package referee

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"pbem/archive"
	"pbem/engine"
	"pbem/internal/english"
	"pbem/notation"
)

// Conditional moves (NOTATION.md, "Conditional moves"): a seat mails lines
//
//	if THEIRPLY [THEIRPLY ...] then MYPLY [THEIRPLY ... MYPLY ...]
//
// and when the game reaches a position a line foresaw, the referee plays
// the seat's answer in the same commit as the ply it answers. The lines of
// a seat are one tree, stored with the game (archive.Conditions) and read
// by nobody but their owner.

// Bounds of one seat's tree in one game.
const (
	// MaxConditionLines is the most conditional lines a seat keeps in a
	// game.
	MaxConditionLines = 100
	// MaxConditionPlies is the most plies of all of a seat's lines in a
	// game together.
	MaxConditionPlies = 1000
)

// ifLine is a conditional line as written: its plies (one token each) with
// the column where each starts, and the index of the first ply after
// "then".
type ifLine struct {
	plies []string
	cols  []int
	then  int
}

// isIfLine reports whether l has the shape of a conditional line: "if",
// then a word that looks like a ply (a square's digits, or pass), and
// "then" later. Prose ("If you agree, then ...") is not one.
func isIfLine(l string) bool {
	f := strings.Fields(l)
	if len(f) < 4 || !strings.EqualFold(f[0], "if") {
		return false
	}
	w := strings.ToLower(f[1])
	if !plyShaped(w) && !strings.ContainsAny(w, "0123456789") && w != "pass" && !strings.HasSuffix(w, ":pass") {
		return false
	}
	for _, w := range f[2:] {
		if strings.EqualFold(w, "then") {
			return true
		}
	}
	return false
}

// parseIfLine reads "if PLY ... then PLY ...": the plies are the words
// between the keywords (a word that ends with "," is joined with the next,
// as "a, b" is one turn of several actions). It is one pass over l.
func parseIfLine(l string) (*ifLine, error) {
	type word struct {
		text string
		col  int
	}
	var words []word
	col := 0
	for i := 0; i < len(l); {
		r, n := utf8.DecodeRuneInString(l[i:])
		if r == ' ' || r == '\t' || r == '\u00a0' {
			i += n
			col++
			continue
		}
		start, startCol := i, col
		for i < len(l) {
			r, n = utf8.DecodeRuneInString(l[i:])
			if r == ' ' || r == '\t' || r == '\u00a0' {
				break
			}
			i += n
			col++
		}
		w := word{l[start:i], startCol + 1}
		if k := len(words) - 1; k >= 0 && strings.HasSuffix(words[k].text, ",") {
			words[k].text += w.text
			continue
		}
		words = append(words, w)
	}
	if len(words) == 0 || !strings.EqualFold(words[0].text, "if") {
		return nil, errors.New("a conditional line starts with if")
	}
	c := &ifLine{then: -1}
	for _, w := range words[1:] {
		switch {
		case strings.EqualFold(w.text, "then") && c.then < 0:
			if len(c.plies) == 0 {
				return nil, fmt.Errorf("column %d: a ply of another seat must come between if and then", w.col)
			}
			c.then = len(c.plies)
		case strings.EqualFold(w.text, "then") || strings.EqualFold(w.text, "if"):
			return nil, fmt.Errorf("column %d: %q a second time: one line is one if ... then ..., a further expected reply and answer follow as plies", w.col, strings.ToLower(w.text))
		default:
			if p := strings.TrimRight(w.text, ".;"); p != "" {
				c.plies = append(c.plies, p)
				c.cols = append(c.cols, w.col)
			}
		}
	}
	if c.then < 0 {
		return nil, errors.New("then is missing: the form is if THEIRPLY then YOURPLY")
	}
	if c.then == len(c.plies) {
		return nil, errors.New("your ply must follow then")
	}
	return c, nil
}

// checkedLine is a conditional line played out from the position it starts
// from: its canonical plies.
type checkedLine struct {
	text  string // as written
	plies []string
}

// playOut plays line c for seat from the game's position. Every ply must
// be legal; the plies before then are other seats', the first after then
// the seat's own, and the line ends with one of the seat's plies.
func (g *game) playOut(seat int, c *ifLine) ([]string, error) {
	at := g.line()
	var canon []string
	for i, text := range c.plies {
		where := fmt.Sprintf("column %d", c.cols[i])
		if o := at.Outcome(); o.Over {
			return nil, fmt.Errorf("%s: the game is over before %s: nothing can follow the ply that ends it", where, text)
		}
		st := at.State()
		mover := st.ToMove()
		switch {
		case i < c.then && mover == seat:
			return nil, fmt.Errorf("%s: %s stands before then, but there it is your turn: before then come only the plies of the seats that move before you",
				where, text)
		case i == c.then && mover != seat:
			return nil, fmt.Errorf("%s: your ply %s follows then, but there %s is to move: name %s's ply before then too",
				where, text, g.who(mover), g.name(mover))
		}
		m, err := g.codec.Decode(st, text)
		var next *engine.Line
		if err == nil {
			next, err = at.Play(m)
		}
		if err != nil {
			reason := plyError(g, text, err)
			var plies []string
			for _, s := range notation.Suggest(g.codec, st, text, maxMailSuggestions) {
				plies = append(plies, s.Ply)
			}
			switch len(plies) {
			case 0:
			case 1:
				reason += "; the legal ply closest to it is " + plies[0]
			default:
				reason += "; the legal plies closest to it are " + andList(plies)
			}
			return nil, fmt.Errorf("%s: %s", where, reason)
		}
		canon = append(canon, g.codec.Encode(st, m))
		if i == len(c.plies)-1 && mover != seat {
			return nil, fmt.Errorf("%s: the line ends with %s, a ply of %s: end it with your answer", where, text, g.who(mover))
		}
		at = next
	}
	return canon, nil
}

// plyError says why text is no ply here.
func plyError(g *game, text string, err error) string {
	if errors.Is(err, engine.ErrIllegalMove) {
		return fmt.Sprintf("%s is illegal there: %s", text, strings.TrimPrefix(err.Error(), "illegal: "))
	}
	var se *notation.SyntaxError
	msg := err.Error()
	if errors.As(err, &se) {
		msg = se.Msg
	}
	return fmt.Sprintf("%q is not a ply in %s notation: %s", text, g.kind(), msg)
}

// conflict finds a kept line that answers a position of l otherwise: the
// two agree up to one of the seat's own plies (mine), which differs. It
// returns that line's index and the two answers, or -1.
func conflict(l []string, kept []checkedLine, mine []bool) (int, string, string) {
	for k, o := range kept {
		for i := 0; i < len(l) && i < len(o.plies); i++ {
			if l[i] == o.plies[i] {
				continue
			}
			if mine[i] {
				return k, l[i], o.plies[i]
			}
			break
		}
	}
	return -1, "", ""
}

// ownPlies marks, for a line of canonical plies from g's position, which
// are seat's.
func (g *game) ownPlies(seat int, plies []string) []bool {
	mine := make([]bool, len(plies))
	at := g.line()
	for i, p := range plies {
		st := at.State()
		mine[i] = st.ToMove() == seat
		m, err := g.codec.Decode(st, p)
		if err != nil {
			return mine[:i]
		}
		if at, err = at.Play(m); err != nil {
			return mine[:i]
		}
	}
	return mine
}

// conditionLines reads the if lines of a message about g: each is played
// out from the present position, the illegal ones are refused (each with
// its column and the closest legal plies) and the others replace the
// seat's tree.
func (s *session) conditionLines(g *game, lines []string) error {
	seat, err := s.authorize(g)
	if err != nil {
		return err
	}
	if err := playing(g); err != nil {
		return err
	}
	if g.mover() == seat {
		return mistake(g, "your ply on a line of its own, with the if lines after it",
			"it is your turn in game #%d: conditional lines answer the plies of the others, so play yours first", g.ID)
	}
	var kept []checkedLine
	total := 0
	type refusal struct {
		n      int
		text   string
		reason string
	}
	var refused []refusal
	for i, l := range lines {
		if len(kept) == MaxConditionLines {
			refused = append(refused, refusal{i + 1, l, fmt.Sprintf("a seat keeps at most %d conditional lines in a game", MaxConditionLines)})
			continue
		}
		c, err := parseIfLine(l)
		var plies []string
		if err == nil {
			plies, err = g.playOut(seat, c)
		}
		if err == nil && total+len(plies) > MaxConditionPlies {
			err = fmt.Errorf("its %s would make more than the %d plies a seat's conditional lines may hold in a game", english.Plural(len(plies), "ply"), MaxConditionPlies)
		}
		if err == nil {
			if k, mine, theirs := conflict(plies, kept, g.ownPlies(seat, plies)); k >= 0 {
				err = fmt.Errorf("it answers with %s where the line %q, kept above, answers with %s: one position, one answer", mine, kept[k].text, theirs)
			}
		}
		if err != nil {
			refused = append(refused, refusal{i + 1, l, err.Error()})
			continue
		}
		if slices.ContainsFunc(kept, func(k checkedLine) bool { return slices.Equal(k.plies, plies) }) {
			continue
		}
		kept = append(kept, checkedLine{text: l, plies: plies})
		total += len(plies)
	}
	g.setConditions(seat, kept)
	s.touch(g)
	for _, r := range refused {
		s.mine.add("%s\n%s", quoteLine(r.text), wrap(fmt.Sprintf("Conditional line %d was refused, and nothing of it is kept: %s.", r.n, r.reason)))
	}
	switch {
	case len(kept) == 0:
		s.mine.add("No conditional line is kept for game #%d: the lines of this message replaced any you had, and none of them could be kept.", g.ID)
	case len(refused) == 0:
		s.mine.add("Kept for game #%d, replacing any conditional lines you had (only you can see them; \"conditions clear\" removes them):", g.ID)
		s.mine.addPre(s.listConditions(g, seat))
	default:
		s.mine.add("The other %s kept for game #%d, replacing any you had (only you can see them):", english.Plural(len(kept), "line"), g.ID)
		s.mine.addPre(s.listConditions(g, seat))
	}
	s.mine.show(g)
	return nil
}

// setConditions replaces seat's tree by lines from the present position
// (none: the tree is removed).
func (g *game) setConditions(seat int, lines []checkedLine) {
	g.Conditions = slices.DeleteFunc(g.Conditions, func(c archive.Conditions) bool { return c.Seat == seat })
	if len(lines) == 0 {
		return
	}
	c := archive.Conditions{Seat: seat, Base: g.plies()}
	for _, l := range lines {
		c.Lines = append(c.Lines, l.plies)
	}
	g.Conditions = append(g.Conditions, c)
	slices.SortFunc(g.Conditions, func(a, b archive.Conditions) int { return a.Seat - b.Seat })
}

// tree is seat's tree, or nil.
func (g *game) tree(seat int) *archive.Conditions {
	for i := range g.Conditions {
		if g.Conditions[i].Seat == seat {
			return &g.Conditions[i]
		}
	}
	return nil
}

// listConditions writes seat's pending lines as the seat would write them.
func (s *session) listConditions(g *game, seat int) string {
	t := g.tree(seat)
	if t == nil {
		return ""
	}
	var b strings.Builder
	for _, l := range t.Lines {
		mine := g.ownPlies(seat, l)
		words := []string{"if"}
		then := false
		for i, p := range l {
			if i < len(mine) && mine[i] && !then {
				words = append(words, "then")
				then = true
			}
			words = append(words, p)
		}
		// Wrapped as a mail program would, continued on indented
		// lines (read back as one line).
		col := 0
		for i, w := range words {
			switch {
			case i == 0:
				b.WriteString("  " + w)
				col = 2 + len(w)
			case col+1+len(w) > Width:
				b.WriteString("\n    " + w)
				col = 4 + len(w)
			default:
				b.WriteString(" " + w)
				col += 1 + len(w)
			}
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// conditionsCmd: conditions [GAMEID], conditions clear [GAMEID].
func (s *session) conditionsCmd(c *cmd) error {
	const form = "conditions [GAMEID] (your pending conditional lines) or conditions clear [GAMEID]"
	clear := false
	if f := strings.Fields(c.rest); len(f) > 0 && strings.EqualFold(f[0], "clear") {
		clear = true
		c = &cmd{line: c.line, verb: c.verb, rest: strings.TrimSpace(c.rest[len(f[0]):])}
	}
	g, err := s.gameArg(c, form)
	if err != nil {
		return err
	}
	seat, err := s.authorize(g)
	if err != nil {
		return err
	}
	t := g.tree(seat)
	switch {
	case clear && t == nil:
		s.mine.add("You had no conditional lines in game #%d.", g.ID)
	case clear:
		n := len(t.Lines)
		g.setConditions(seat, nil)
		s.touch(g)
		s.mine.add("Your %s in game #%d %s removed.", english.Plural(n, "conditional line"), g.ID, map[bool]string{true: "is", false: "are"}[n == 1])
	case t == nil:
		s.mine.add("You have no conditional lines in game #%d. Write them in a reply to its mail, one a line: if THEIRPLY then YOURPLY [THEIRPLY YOURPLY ...].", g.ID)
	default:
		s.mine.add("Your conditional lines in game #%d (only you can see them):", g.ID)
		s.mine.addPre(s.listConditions(g, seat))
	}
	s.mine.show(g)
	return nil
}

// playConditions plays, in every game the session changed, the answers the
// seats' trees hold for the plies played: a tree follows the branch that
// the plies since it was set match, its owner's next ply is played when it
// is the owner's turn, and a tree no ply matched is cleared. Chains run as
// far as the trees go; a game that ends clears every tree.
func (s *session) playConditions() error {
	for i := 0; i < len(s.changed); i++ {
		if err := s.answerConditions(s.changed[i]); err != nil {
			return err
		}
	}
	return nil
}

func (s *session) answerConditions(g *game) error {
	for len(g.Conditions) > 0 {
		if g.Status != archive.Playing || g.b == nil || g.line().Outcome().Over {
			g.Conditions = nil // secret even after the game: never kept
			return nil
		}
		played := g.plyTexts(0)
		mover := g.mover()
		answer := ""
		var trees []archive.Conditions
		for _, t := range g.Conditions {
			if t.Base > len(played) {
				continue // plies were taken back past its start
			}
			since := played[t.Base:]
			var lines [][]string
			done := false // a line was played to its end
			for _, l := range t.Lines {
				if len(l) >= len(since) && slices.Equal(l[:len(since)], since) {
					if len(l) == len(since) {
						done = true
						continue
					}
					lines = append(lines, l[len(since):])
				}
			}
			if len(lines) == 0 {
				if len(since) > 0 && !done {
					s.tellSeats(g, []int{t.Seat}, "Your conditional lines in game #%d did not foresee %s (ply %d): they are cleared.",
						g.ID, played[len(played)-1], len(played))
				}
				continue
			}
			t.Base, t.Lines = len(played), lines
			if t.Seat == mover {
				answer = lines[0][0]
			}
			trees = append(trees, t)
		}
		g.Conditions = trees
		s.touch(g)
		if answer == "" {
			return nil
		}
		if err := s.playAnswer(g, mover, answer); err != nil {
			return err
		}
	}
	return nil
}

// playAnswer plays seat's conditional answer.
func (s *session) playAnswer(g *game, seat int, text string) error {
	before := g.state()
	clock := g.clockOf(seat)
	m, err := g.codec.Decode(before, text)
	if err == nil {
		err = g.play(m)
	}
	if err != nil {
		// The line was legal when it was kept and positions do not
		// change: a bug. The tree goes; the seat moves by hand.
		s.r.log.Error("conditional answer refused", "game", g.ID, "ply", text, "err", err)
		g.setConditions(seat, nil)
		s.tellSeats(g, []int{seat}, "Your conditional answer %s could not be played in game #%d; your lines are cleared. It is your move.", text, g.ID)
		return nil
	}
	s.charge(g, seat, clock)
	g.comment("conditional")
	n := g.plies()
	canon := g.codec.Encode(before, m)
	s.r.stats.conditional.Add(1)
	sender := -1
	if s.mine != nil && !s.bot {
		sender = g.seatOf(s.from.Addr)
	}
	switch {
	case sender == seat:
		s.mine.add("Your conditional line answered: you played %s (ply %d).", canon, n)
	case sender >= 0:
		s.mine.add("%s answered %s (ply %d), a conditional move.", g.who(seat), canon, n)
		fallthrough
	default:
		s.tellSeats(g, []int{seat}, "Your conditional line answered: you played %s (ply %d).", canon, n)
	}
	var others []int
	for i := range g.Seats {
		if i != seat {
			others = append(others, i)
		}
	}
	s.touch(g)
	g.news = append(g.news, news{text: fmt.Sprintf("%s answered %s (ply %d), a conditional move.", g.who(seat), canon, n),
		seats: append([]int{}, others...), observers: true})
	if sender >= 0 {
		s.mine.show(g)
	}
	return s.afterPly(g)
}
