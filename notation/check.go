package notation

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"pbem/engine"
)

// Problem is one thing wrong with a record, printed by `pbem check` as
// FILE:LINE:COL: game N, ply P "TOKEN": MESSAGE.
type Problem struct {
	File      string
	Line, Col int
	Game      int    // 1-based game number in the file
	Ply       int    // 1-based ply number (0 before the first ply)
	Token     string // the offending token as written
	Msg       string
	// Board is the position before an illegal ply (empty otherwise).
	Board string
	// Suggestions are the legal plies closest to an illegal or unreadable
	// ply, best first (see Suggest).
	Suggestions []string
	// Repair is the one suggestion with which the rest of the line is
	// legal (and the game ends as its result says), "" when there is not
	// exactly one; Repaired says the checked game holds it in place of the
	// ply written.
	Repair   string
	Repaired bool

	ply *Ply // the ply, for Fix

	offset int // byte offset, for progress reports
}

// MaxToken is the longest token a problem line quotes in full; longer ones
// are cut with "..." (a 100 MB line must not become a 100 MB message).
const MaxToken = 60

func (p *Problem) String() string {
	tok := p.Token
	if len(tok) > MaxToken {
		tok = tok[:MaxToken] + "..."
	}
	return fmt.Sprintf("%s:%d:%d: game %d, ply %d %s: %s", p.File, p.Line, p.Col, p.Game, p.Ply, strconv.Quote(tok), p.Msg)
}

func (p *Problem) Error() string { return p.String() }

// Lookup finds the codec of a game id. Its error is shown to the user as
// is (e.g. `unknown game "chess"; expected one of ...`).
type Lookup func(id string) (Codec, error)

// Game is a record that has been checked: the position after every ply of
// the main line and the canonical spelling of every ply.
type Game struct {
	Record  *Record
	Codec   Codec
	Options engine.Options
	Sides   []string
	// Lines[i] is the game after i plies of the main line (Lines[0] the
	// start); when a ply was illegal the slice stops before it.
	Lines []*engine.Line
	Moves []engine.Move
	// Outcome is the end decided by the rules (or repetition) at the last
	// position, if any.
	Outcome engine.Outcome
	// Plies counts the plies checked, variations included.
	Plies int
	// Position is the canonical text of the position a [SetUp "1"] record
	// starts from ("" when it starts from the rules' start).
	Position string

	repaired *repairedLine // when the main line was checked past a problem
}

// Final is the position after the last legal ply of the main line.
func (g *Game) Final() *engine.Line { return g.Lines[len(g.Lines)-1] }

// Terminations that allow a decided result on a position the rules have not
// ended.
var terminations = []string{"resign", "agreement", "time", "forfeit"}

// validDate reports whether v is a Date tag's value: YYYY.MM.DD, each
// field digits or all question marks (????.??.??).
func validDate(v string) bool {
	if len(v) != 10 || v[4] != '.' || v[7] != '.' {
		return false
	}
	for _, f := range [3]string{v[:4], v[5:7], v[8:]} {
		digits, unknown := true, true
		for i := range len(f) {
			digits = digits && f[i] >= '0' && f[i] <= '9'
			unknown = unknown && f[i] == '?'
		}
		if !digits && !unknown {
			return false
		}
	}
	return true
}

// Options derives the game options from the tags (Players, Board,
// FirstPlayer) and the side names. It returns the problem with the tag.
func options(r *Record, rules engine.Rules) (engine.Options, []string, *Problem) {
	var o engine.Options
	tagProblem := func(name, format string, args ...any) *Problem {
		t := r.tag(name)
		return &Problem{File: r.File, Game: r.Index, Line: t.Pos.Line, Col: t.Pos.Col, Token: t.Value, Msg: fmt.Sprintf(format, args...)}
	}
	if v, ok := r.Tag("Players"); ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			return o, nil, tagProblem("Players", "bad [Players %q]; expected a number of seats such as \"4\"", v)
		}
		o.Players = n
	}
	if v, ok := r.Tag("Board"); ok {
		o.Board = v
	}
	sides, err := rules.Sides(o)
	if err != nil {
		name := "Players"
		if _, ok := r.Tag("Board"); ok {
			name = "Board"
		}
		if _, ok := r.Tag(name); !ok {
			name = "Game"
		}
		return o, nil, tagProblem(name, "%v", err)
	}
	if v, ok := r.Tag("FirstPlayer"); ok {
		i := slices.Index(sides, v)
		if i < 0 {
			return o, nil, tagProblem("FirstPlayer", "bad [FirstPlayer %q]; expected one of %s", v, strings.Join(sides, ", "))
		}
		o.First = i
	}
	return o, sides, nil
}

// setUp reads the position a record starts from when it has [SetUp "1"]:
// the state and its canonical text from the [Position] tag. Without
// [SetUp "1"] it returns a nil state (the rules' start).
func setUp(r *Record, rules engine.Rules, o engine.Options) (engine.State, string, *Problem) {
	tagProblem := func(name, token, format string, args ...any) *Problem {
		t := r.tag(name)
		return &Problem{File: r.File, Game: r.Index, Line: t.Pos.Line, Col: t.Pos.Col, Token: token, Msg: fmt.Sprintf(format, args...)}
	}
	flag, hasFlag := r.Tag("SetUp")
	text, hasText := r.Tag("Position")
	switch {
	case hasFlag && flag != "0" && flag != "1":
		return nil, "", tagProblem("SetUp", flag, `bad [SetUp %q]; expected "1" (the game starts from its [Position]) or "0"`, flag)
	case flag == "1" && !hasText:
		return nil, "", tagProblem("SetUp", flag, `[SetUp "1"] without [Position]; expected the position text in a [Position] tag (NOTATION.md, "Positions")`)
	case hasText && flag != "1":
		return nil, "", tagProblem("Position", text, `[Position] without [SetUp "1"]; expected [SetUp "1"] with it`)
	case flag != "1":
		return nil, "", nil
	}
	// The side to move is the position's: FirstPlayer numbers rounds only.
	o.First = 0
	s, err := engine.ParsePosition(rules, o, text)
	if err != nil {
		return nil, "", tagProblem("Position", text, "bad [Position]: %v", err)
	}
	return s, s.(engine.Positioner).Position(), nil
}

func (r *Record) tag(name string) Tag {
	for _, t := range r.Tags {
		if t.Name == name {
			return t
		}
	}
	return Tag{Pos: r.Pos}
}

// Check validates a record: tags, every ply of the main line and of every
// variation, move numbers, and the result. It reports every problem it can
// find. An illegal or unreadable ply gets the legal plies closest to it
// (Problem.Suggestions); checking goes on past it with the one that plays
// furthest into the rest of the line when only one does (with exactly one
// that makes all the rest legal, Problem.Repair), else the rest of that
// line cannot be checked. The Game's Lines stop before the first illegal
// ply of the main line all the same (Checked.Fix makes the repairs). It
// fills in the canonical spelling of every ply checked. The returned Game
// is nil when the game itself is unknown or its tags unusable.
func Check(r *Record, lookup Lookup) (*Game, []*Problem) { return check(nil, r, lookup, true) }

// check is Check; canon: fill in the canonical spelling of every ply. The
// Game, the checker and their slices come from m (nil: allocated).
func check(m *gameMem, r *Record, lookup Lookup, canon bool) (*Game, []*Problem) {
	problems := duplicateTags(r)
	id, ok := r.Tag("Game")
	if !ok {
		return nil, append(problems, &Problem{File: r.File, Game: r.Index, Line: r.Pos.Line, Col: r.Pos.Col, Token: firstToken(r),
			Msg: `missing [Game] tag; expected the game id first, as in [Game "castles"]`})
	}
	codec, err := lookup(id)
	if err != nil {
		t := r.tag("Game")
		return nil, append(problems, &Problem{File: r.File, Game: r.Index, Line: t.Pos.Line, Col: t.Pos.Col, Token: id, Msg: err.Error()})
	}
	for _, t := range r.Tags {
		if t.Name == "Date" && !validDate(t.Value) {
			problems = append(problems, &Problem{File: r.File, Game: r.Index, Line: t.Pos.Line, Col: t.Pos.Col, Token: t.Value,
				Msg: fmt.Sprintf("bad [Date %q]; expected YYYY.MM.DD with ?? for unknown parts", t.Value)})
		}
	}
	o, sides, p := options(r, codec.Rules())
	if p != nil {
		return nil, append(problems, p)
	}
	start, err := codec.Rules().Start(o)
	if err != nil {
		t := r.tag("Game")
		return nil, append(problems, &Problem{File: r.File, Game: r.Index, Line: t.Pos.Line, Col: t.Pos.Col, Token: id, Msg: err.Error()})
	}
	g := m.game()
	g.Record, g.Codec, g.Options, g.Sides = r, codec, o, sides
	c := m.checker()
	c.g, c.first, c.n, c.canon, c.mem = g, o.First, len(sides), canon, m
	if set, text, p := setUp(r, codec.Rules(), o); p != nil {
		return nil, append(problems, p)
	} else if set != nil {
		start, g.Position, c.setUp = set, text, true
	}
	c.mainBad = -1
	main, ok := c.line(r.Main, m.newLine(start, len(r.Main.Plies)), 0, -1, 0, &g.Moves)
	problems = append(problems, c.problems...)
	g.Lines = main // main[0] is the start
	c.problems = nil
	c.clocks(r)
	problems = append(problems, c.problems...)
	if ok {
		g.Outcome = g.Final().Outcome()
		problems = append(problems, c.result(r)...)
	}
	if c.mainBad >= 0 {
		// Checking went on past an illegal ply with a suggestion: the game
		// as written stops before it (Fix makes the repairs).
		if ok {
			g.repaired = &repairedLine{lines: g.Lines, moves: g.Moves, outcome: g.Outcome}
		}
		g.Lines, g.Moves, g.Outcome = g.Lines[:c.mainBad+1], g.Moves[:c.mainBad], engine.Outcome{}
	}
	return g, problems
}

// repairedLine is the main line of a game played with the repairs of its
// problems.
type repairedLine struct {
	lines   []*engine.Line
	moves   []engine.Move
	outcome engine.Outcome
}

// fewTags is how many tags duplicateTags compares pairwise (cheaper than a
// map for the usual handful; a map keeps many tags linear).
const fewTags = 16

// duplicateTags reports every tag given a second time in a game, naming
// the lines of both.
func duplicateTags(r *Record) []*Problem {
	var problems []*Problem
	var first map[string]int // line of each tag's first, when tags are many
	if len(r.Tags) > fewTags {
		first = make(map[string]int, len(r.Tags))
	}
	for i, t := range r.Tags {
		line, seen := 0, false
		if first != nil {
			if line, seen = first[t.Name]; !seen {
				first[t.Name] = t.Pos.Line
			}
		} else {
			for _, u := range r.Tags[:i] {
				if u.Name == t.Name {
					line, seen = u.Pos.Line, true
					break
				}
			}
		}
		if !seen {
			continue
		}
		where := fmt.Sprintf("on lines %d and %d", line, t.Pos.Line)
		if line == t.Pos.Line {
			where = fmt.Sprintf("on line %d", line)
		}
		problems = append(problems, &Problem{File: r.File, Game: r.Index, Line: t.Pos.Line, Col: t.Pos.Col, Token: t.Name,
			Msg: fmt.Sprintf("tag [%s] given twice, %s; expected each tag once", t.Name, where)})
	}
	return problems
}

func firstToken(r *Record) string {
	if len(r.Tags) > 0 {
		return r.Tags[0].Name
	}
	if len(r.Main.Plies) > 0 {
		return r.Main.Plies[0].Text
	}
	return r.Result
}

type checker struct {
	g        *Game
	first, n int
	problems []*Problem
	canon    bool // fill in Ply.Canon
	// setUp: the game starts from a [Position]; its first ply is in round
	// 1 whoever makes it ("1..." when not the first side, as in PGN).
	setUp bool
	// mainBad is the number of legal plies of the main line before its
	// first illegal one, or -1.
	mainBad int
	// override: plies read as these texts instead of theirs (by reach).
	override map[*Ply]string
	mem      *gameMem // where the slices of lines and moves come from
}

func (c *checker) add(pos Pos, ply int, tok, format string, args ...any) *Problem {
	p := &Problem{File: c.g.Record.File, Game: c.g.Record.Index, Line: pos.Line, Col: pos.Col, Ply: ply, Token: tok, Msg: fmt.Sprintf(format, args...)}
	c.problems = append(c.problems, p)
	return p
}

// roundOf numbers a ply: mover moves after prev (-1 at the start of the
// game) in round prevRound. A round opens with the side that moves first;
// a ply opens a new round when its mover does not come after the previous
// mover in seat order counted from the first side (this also holds when
// seats are skipped). The castles setup ply is round 0; in a game set up
// from a position, a first ply by another side than the first continues
// round 1.
func (c *checker) roundOf(prevRound, prev, mover int) (int, bool) {
	cyc := func(x int) int { return (x - c.first + c.n) % c.n }
	if prev < 0 {
		if cyc(mover) == 0 {
			return 1, true
		}
		if c.setUp {
			return 1, false
		}
		return 0, false
	}
	if cyc(mover) <= cyc(prev) {
		return prevRound + 1, true
	}
	return prevRound, false
}

// line checks the plies of l from position at (after ply number base, whose
// mover was prevMover, in round prevRound). It returns the positions after
// each legal ply (at included first) and whether every ply was legal. Moves
// of the main line are appended to moves when it is not nil.
func (c *checker) line(l *Line, at *engine.Line, base, prevMover, prevRound int, moves *[]engine.Move) ([]*engine.Line, bool) {
	lines := append(c.mem.lineSlots(len(l.Plies)+1), at)
	var fixes []lineFix // the plies checking went on past
	if moves != nil && *moves == nil {
		*moves = c.mem.moveSlots(len(l.Plies))
	}
	for i, p := range l.Plies {
		ply := base + i + 1
		s := at.State()
		// Variations are alternatives to this ply: they start from at.
		for _, v := range p.Variations {
			c.line(v, at, ply-1, prevMover, prevRound, nil)
		}
		if at.Over() {
			c.add(p.Pos, ply, p.Text, "illegal: the game is already over (%s); no ply may follow", at.Outcome().Reason)
			return lines, false
		}
		mover := s.ToMove()
		round, opens := c.roundOf(prevRound, prevMover, mover)
		if p.HasNumber && leaveToken(p.Text) {
			c.add(p.NumberPos, ply, p.NumberTok, "move number %s before %s: a seat's leave or takeover takes no move number", p.NumberTok, p.Text)
		} else if p.HasNumber && (p.Number != round || p.Continues == opens) {
			want := fmt.Sprintf("%d.", round)
			if !opens {
				want = fmt.Sprintf("%d...", round)
			}
			c.add(p.NumberPos, ply, p.NumberTok, "move number %s disagrees with the plies; expected %s", p.NumberTok, want)
		}
		m, next, err := c.play(at, p.Text)
		if err != nil {
			col := p.Pos
			var se *SyntaxError
			if errors.As(err, &se) {
				col.Col += se.Offset
			}
			pr := c.add(col, ply, p.Text, "%s", err.Error())
			pr.Board = s.Render(-1)
			pr.ply = p
			fix, ok := c.repair(pr, l.Plies, i, lines, moves != nil)
			if !ok {
				return lines, false
			}
			// Checking goes on with the repair, so that later problems
			// are found in the same run.
			m, next = fix.Move, fix.next
			if moves != nil && c.mainBad < 0 {
				c.mainBad = len(lines) - 1
			}
			fixes = append(fixes, lineFix{pr: pr, i: i, cand: fix})
		}
		if c.canon {
			p.Canon = c.g.Codec.Encode(s, m)
		}
		p.round, p.opens = int32(round), opens
		p.leave = outOfTurn(m)
		c.g.Plies++
		if moves != nil {
			*moves = append(*moves, m)
		}
		at = next
		if !p.leave {
			// A leave stands between plies: it neither opens a round
			// nor moves the turn's order on.
			prevMover, prevRound = mover, round
		}
		lines = append(lines, at)
	}
	c.confirm(fixes, l.Plies, lines, moves != nil)
	return lines, true
}

// outOfTurn reports whether m is a seat's leave or rejoin, which stands
// between plies.
func outOfTurn(m engine.Move) bool {
	switch m.(type) {
	case engine.Leave, engine.Rejoin:
		return true
	}
	return false
}

// leaveToken reports whether a ply's text has the shape of a seat's leave
// (Y:resign, Y:time), which takes no move number.
func leaveToken(text string) bool {
	_, r, ok := strings.Cut(text, ":")
	// Only a word starting with r or t (or a byte outside ASCII) can read
	// as one of them in lower case: the rest are not lower-cased (a copy).
	if !ok || r == "" || r[0] < utf8.RuneSelf && r[0]|0x20 != 'r' && r[0]|0x20 != 't' {
		return false
	}
	r = strings.ToLower(r)
	return r == engine.LeaveResign || r == engine.LeaveTime || r == "takeover"
}

// Checked is one game of a file after checking.
type Checked struct {
	Index  int     // 1-based number of the game in the file
	Record *Record // nil after a syntax error
	Game   *Game   // nil when the game could not be set up (unknown game, bad tags)
	// Problems in file order; empty when the game is valid.
	Problems []*Problem
	// Offset of the game's first byte in the file, for progress reports.
	Offset int
	// Start is the offset of the game's first token in the file (its
	// first tag), where a copy of the game as written begins; it ends
	// where the next game's Start is, or at the end of the file.
	Start int
	// Typography counts the typographic characters of the game read as
	// what they stand for (typography.go): an en dash as "-", a curly quote
	// as '"', a no-break space as a blank.
	Typography int
}

// Valid reports whether the game was checked without a problem.
func (c *Checked) Valid() bool { return c.Game != nil && len(c.Problems) == 0 }

// CheckFile reads and checks every game of a record file, in order, and
// hands each to each. A syntax error costs only its game. Games are checked
// on all cores (see Checker).
func CheckFile(file string, data []byte, lookup Lookup, each func(*Checked)) {
	(&Checker{Lookup: lookup}).Run(file, bytes.NewReader(data), each)
}
