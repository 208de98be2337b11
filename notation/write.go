package notation

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"pbem/engine"
)

// MaxColumns is the widest line the writer emits (a token longer than that
// stands alone on its line).
const MaxColumns = 79

// tagOrder returns the canonical tag order: Game Event Site Date Round, the
// sides in seat order, Result, then FirstPlayer Players Board SetUp
// Position Termination TimeControl Annotator, then any other tags in the
// order they were read.
func tagOrder(sides []string) []string {
	o := []string{"Game", "Event", "Site", "Date", "Round"}
	o = append(o, sides...)
	return append(o, "Result", "FirstPlayer", "Players", "Board", "SetUp", "Position", "Termination", "TimeControl", "Annotator")
}

// CanonicalResult is the result token the writer emits for a checked game:
// the one the rules give when they ended it, else the one written, spelled
// canonically.
func (g *Game) CanonicalResult() string {
	if g.Outcome.Over {
		return FormatResult(g.Codec, g.Sides, g.Outcome)
	}
	ranks, err := ParseResult(g.Codec, g.Sides, g.Record.Result)
	if err != nil || ranks == nil {
		return "*"
	}
	return FormatResult(g.Codec, g.Sides, engine.Outcome{Over: true, Rank: ranks})
}

// Write emits a checked, valid game in canonical export form: tags in fixed
// order, a blank line, the movetext with canonical plies and move numbers
// wrapped at MaxColumns, and a blank line after.
func Write(w io.Writer, g *Game) error {
	bw := bufio.NewWriter(w)
	r := g.Record
	res := g.CanonicalResult()
	order := tagOrder(g.Sides)
	seen := map[string]bool{}
	for _, name := range order {
		if seen[name] {
			continue
		}
		seen[name] = true
		v, ok := r.Tag(name)
		switch {
		case name == "Result":
			v, ok = res, true
		case name == "Position" && g.Position != "":
			v = g.Position // canonical
		}
		if ok {
			fmt.Fprintf(bw, "[%s %s]\n", name, quote(v))
		}
	}
	for _, t := range r.Tags {
		if !seen[t.Name] {
			seen[t.Name] = true
			fmt.Fprintf(bw, "[%s %s]\n", t.Name, quote(t.Value))
		}
	}
	bw.WriteByte('\n')
	ww := &wrapper{w: bw}
	ww.line(r.Main)
	ww.word(res)
	bw.WriteString("\n\n")
	return bw.Flush()
}

// Format returns the canonical text of a checked game.
func Format(g *Game) string {
	var b strings.Builder
	Write(&b, g)
	return b.String()
}

type wrapper struct {
	w   *bufio.Writer
	col int
	pre string // glued to the front of the next word ("(")
}

func (w *wrapper) word(s string) {
	s, w.pre = w.pre+s, ""
	switch {
	case w.col == 0:
	case w.col+1+len(s) > MaxColumns:
		w.w.WriteByte('\n')
		w.col = 0
	default:
		w.w.WriteByte(' ')
		w.col++
	}
	w.w.WriteString(s)
	w.col += len(s)
}

func (w *wrapper) comment(c string) {
	words := strings.Fields(c)
	if len(words) == 0 {
		w.word("{}")
		return
	}
	words[0] = "{" + words[0]
	words[len(words)-1] += "}"
	for _, x := range words {
		w.word(x)
	}
}

func (w *wrapper) line(l *Line) {
	for _, c := range l.Comments {
		w.comment(c)
	}
	renumber := true
	for _, p := range l.Plies {
		// A move number stays on the line of its ply.
		num := ""
		switch {
		case p.leave:
		case p.opens:
			num = strconv.Itoa(int(p.round)) + ". "
		case renumber:
			num = strconv.Itoa(int(p.round)) + "... "
		}
		w.word(num + p.Canon + strings.Join(p.Annots, ""))
		renumber = p.leave
		for _, n := range p.NAGs {
			w.word("$" + strconv.Itoa(n))
		}
		for _, c := range p.Comments {
			w.comment(c)
			renumber = true
		}
		for _, v := range p.Variations {
			w.pre = "("
			w.line(v)
			if w.col+1 > MaxColumns {
				w.w.WriteByte('\n')
				w.col = 0
			}
			w.w.WriteByte(')')
			w.col++
			renumber = true
		}
	}
}

// Builder records a game as it is played (selfplay, the referee), keeping
// the canonical spelling and move numbers of every ply.
type Builder struct {
	g *Game
	c *checker
	// round and mover of the last ply
	round, mover int
}

// NewBuilder starts a record of a new game with the given tags (Game is set
// from the codec; Players, Board and FirstPlayer from o). With tags
// [SetUp "1"] and [Position "TEXT"] the game starts from that position (its
// tag rewritten in canonical text); a position that does not read is an
// error that says what is wrong and where.
func NewBuilder(codec Codec, o engine.Options, tags []Tag) (*Builder, error) {
	rules := codec.Rules()
	sides, err := rules.Sides(o)
	if err != nil {
		return nil, err
	}
	start, err := rules.Start(o)
	if err != nil {
		return nil, err
	}
	r := &Record{Main: &Line{}, Result: "*"}
	r.SetTag("Game", rules.ID())
	for _, t := range tags {
		r.SetTag(t.Name, t.Value)
	}
	if o.Players != 0 {
		r.SetTag("Players", strconv.Itoa(o.Players))
	}
	if o.Board != "" {
		r.SetTag("Board", o.Board)
	}
	if o.First != 0 {
		r.SetTag("FirstPlayer", sides[o.First])
	}
	set, text, p := setUp(r, rules, o)
	if p != nil {
		return nil, fmt.Errorf("notation: %s", p.Msg)
	}
	g := &Game{Record: r, Codec: codec, Options: o, Sides: sides}
	if set != nil {
		start, g.Position = set, text
		r.SetTag("Position", text) // canonical
	}
	g.Lines = []*engine.Line{engine.NewLine(start)}
	return &Builder{g: g, c: &checker{g: g, first: o.First, n: len(sides), setUp: set != nil}, mover: -1}, nil
}

// Line is the game so far.
func (b *Builder) Line() *engine.Line { return b.g.Final() }

// Play applies m and records it.
func (b *Builder) Play(m engine.Move) error {
	at := b.g.Final()
	s := at.State()
	next, err := at.Play(m)
	if err != nil {
		return err
	}
	round, opens := b.c.roundOf(b.round, b.mover, s.ToMove())
	canon := b.g.Codec.Encode(s, m)
	leave := outOfTurn(m)
	b.g.Record.Main.Plies = append(b.g.Record.Main.Plies, &Ply{Text: canon, Canon: canon, round: int32(round), opens: opens, leave: leave})
	b.g.Lines = append(b.g.Lines, next)
	b.g.Moves = append(b.g.Moves, m)
	b.g.Plies++
	if !leave {
		b.round, b.mover = round, s.ToMove()
	}
	b.g.Outcome = next.Outcome()
	return nil
}

// Comment attaches a comment to the last ply (or before the first).
func (b *Builder) Comment(text string) {
	l := b.g.Record.Main
	if n := len(l.Plies); n > 0 {
		l.Plies[n-1].Comments = append(l.Plies[n-1].Comments, text)
	} else {
		l.Comments = append(l.Comments, text)
	}
}

// Finish sets the result: the rules' outcome when they ended the game, else
// the given one (a resignation, agreement, time forfeit) with its
// termination; a nil outcome leaves the game unfinished ("*").
func (b *Builder) Finish(o *engine.Outcome, termination string) {
	r := b.g.Record
	switch {
	case b.g.Outcome.Over:
		r.Result = FormatResult(b.g.Codec, b.g.Sides, b.g.Outcome)
	case o != nil:
		r.Result = FormatResult(b.g.Codec, b.g.Sides, *o)
		if termination != "" {
			r.SetTag("Termination", termination)
		}
	default:
		r.Result = "*"
	}
	r.SetTag("Result", r.Result)
}

// Game is the record built so far.
func (b *Builder) Game() *Game {
	if !slices.ContainsFunc(b.g.Record.Tags, func(t Tag) bool { return t.Name == "Result" }) {
		b.g.Record.SetTag("Result", b.g.Record.Result)
	}
	return b.g
}
