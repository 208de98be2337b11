package main

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"

	"pbem/engine"
	"pbem/engine/bot"
	"pbem/notation"
	"pbem/referee"
)

// maxInputLine bounds one line read from the player.
const maxInputLine = 4096

func runPlay(c *cli, args []string) int {
	fs := c.flags("play")
	level := fs.Int("level", 2, fmt.Sprintf("the bot's level `N` (0 = random moves, %d = strongest)", bot.MaxLevel))
	as := fs.String("as", "", "play `SIDE` (a side name such as First or R, or its seat number from 1; default: the first seat)")
	seed := fs.Uint64("seed", 1, "the bot's random seed (the same seed gives the same replies)")
	players := fs.Int("players", 0, "number of seats (rpp; 0 = the game's default); the bot plays every seat but yours")
	board := fs.String("board", "", "board name (rpp; default for the number of players)")
	pos, code, done := c.parse(fs, args)
	if done {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintf(c.stderr, "pbem play: expected one game id (see pbem games), got %d arguments\n", len(pos))
		return 2
	}
	codec, err := referee.Lookup(pos[0])
	if err != nil {
		fmt.Fprintf(c.stderr, "pbem play: %v\n", err)
		return 2
	}
	o := engine.Options{Players: *players, Board: *board}
	start, err := codec.Rules().Start(o)
	if err != nil {
		fmt.Fprintf(c.stderr, "pbem play: %v\n", err)
		return 2
	}
	sides := start.Sides()
	human, err := seatOf(sides, *as)
	if err != nil {
		fmt.Fprintf(c.stderr, "pbem play: %v\n", err)
		return 2
	}
	opp, err := bot.New(*level, *seed)
	if err != nil {
		fmt.Fprintf(c.stderr, "pbem play: %v\n", err)
		return 2
	}
	adviser := opp
	if *level == 0 {
		adviser, _ = bot.New(1, *seed) // a random hint helps no one
	}
	p := &session{c: c, codec: codec, o: o, human: human, bot: opp, adviser: adviser, start: start}
	return p.run()
}

// seatOf finds the seat a player asked for: a side name (any case) or a
// seat number from 1; the first seat when as is empty.
func seatOf(sides []string, as string) (int, error) {
	if as == "" {
		return 0, nil
	}
	for i, s := range sides {
		if strings.EqualFold(s, as) {
			return i, nil
		}
	}
	if n, err := strconv.Atoi(as); err == nil && n >= 1 && n <= len(sides) {
		return n - 1, nil
	}
	return 0, fmt.Errorf("no side %q; expected one of %s or a seat number 1 to %d", as, strings.Join(sides, ", "), len(sides))
}

// session is a game between a person at the terminal and the bot.
type session struct {
	c            *cli
	codec        notation.Codec
	o            engine.Options
	human        int
	bot, adviser *bot.Player
	start        engine.State
	moves        []engine.Move
	line         *engine.Line
}

func (p *session) run() int {
	ctx := context.Background()
	w := bufio.NewWriter(p.c.stdout)
	defer w.Flush()
	in := bufio.NewScanner(p.c.stdin)
	in.Buffer(make([]byte, 0, 256), maxInputLine)
	sides := p.start.Sides()
	p.line = engine.NewLine(p.start)
	fmt.Fprintf(w, "pbem play %s: you are %s, %s plays %s.\n", p.codec.Rules().ID(), sides[p.human], p.bot.Name(), others(sides, p.human))
	fmt.Fprintf(w, "Type a move (help for the notation), undo, hint or quit.\n")
	showBoard := true
	for {
		if o := p.line.Outcome(); o.Over {
			fmt.Fprintf(w, "\n%s\n\nresult %s (%s)\n", strings.TrimRight(p.line.State().Render(p.human), "\n"), notation.FormatResult(p.codec, sides, o), o.Reason)
			p.record(w, nil)
			return 0
		}
		s := p.line.State()
		if s.ToMove() != p.human {
			m, err := p.bot.MoveLine(ctx, p.line)
			if err != nil {
				fmt.Fprintf(p.c.stderr, "pbem play: %v\n", err)
				return 1
			}
			fmt.Fprintf(w, "%s plays %s\n", sides[s.ToMove()], p.codec.Encode(s, m))
			p.play(m)
			showBoard = true
			continue
		}
		if showBoard {
			fmt.Fprintf(w, "\n%s\n\n", strings.TrimRight(s.Render(p.human), "\n"))
			showBoard = false
		}
		fmt.Fprintf(w, "%s to move> ", sides[p.human])
		w.Flush()
		if !in.Scan() {
			fmt.Fprintln(w)
			if err := in.Err(); err != nil {
				fmt.Fprintf(p.c.stderr, "pbem play: reading moves: %v\n", err)
				return 1
			}
			p.record(w, nil)
			return 0
		}
		text := strings.TrimSpace(in.Text())
		switch strings.ToLower(text) {
		case "":
		case "quit", "exit", "resign":
			res := resigned(len(sides), p.human)
			fmt.Fprintf(w, "You leave the game.\n")
			p.record(w, &res)
			return 0
		case "help":
			fmt.Fprintf(w, "%s\n\nCommands: undo (take back your last move and the reply), hint, quit.\n", p.codec.Notation())
		case "undo":
			if !p.undo() {
				fmt.Fprintf(w, "Nothing to undo: you have not moved yet.\n")
				continue
			}
			fmt.Fprintf(w, "Taken back.\n")
			showBoard = true
		case "hint":
			m, err := p.adviser.MoveLine(ctx, p.line)
			if err != nil {
				fmt.Fprintf(p.c.stderr, "pbem play: %v\n", err)
				return 1
			}
			fmt.Fprintf(w, "Hint: %s\n", p.codec.Encode(s, m))
		default:
			m, err := p.codec.Decode(s, text)
			if err == nil {
				_, err = p.line.Play(m)
			}
			if err != nil {
				fmt.Fprintf(w, "Not played: %q: %v\nExpected a move of %s in the notation of %s (help shows it), undo, hint or quit.\n",
					text, err, sides[p.human], p.codec.Rules().ID())
				continue
			}
			fmt.Fprintf(w, "%s plays %s\n", sides[p.human], p.codec.Encode(s, m))
			p.play(m)
		}
	}
}

// others names every side but seat.
func others(sides []string, seat int) string {
	var o []string
	for i, s := range sides {
		if i != seat {
			o = append(o, s)
		}
	}
	return strings.Join(o, ", ")
}

// resigned ranks the leaving seat last and every other seat first.
func resigned(n, seat int) engine.Outcome {
	r := make([]int, n)
	for i := range r {
		r[i] = 1
	}
	r[seat] = n
	return engine.Outcome{Over: true, Rank: r, Reason: "resignation"}
}

func (p *session) play(m engine.Move) {
	next, err := p.line.Play(m)
	if err != nil {
		panic(fmt.Sprintf("pbem play: a checked move was refused: %v", err))
	}
	p.line = next
	p.moves = append(p.moves, m)
}

// undo takes back the person's last move and every bot move after it.
func (p *session) undo() bool {
	k := len(p.moves)
	l := p.line
	for k > 0 {
		l = l.Parent()
		k--
		if l.State().ToMove() == p.human {
			p.line, p.moves = l, p.moves[:k]
			return true
		}
	}
	return false
}

// record prints the game's record, finished with res when the rules did
// not end it.
func (p *session) record(w *bufio.Writer, res *engine.Outcome) {
	sides := p.start.Sides()
	tags := []notation.Tag{{Name: "Event", Value: "pbem play"}, {Name: "Site", Value: "pbem"}, {Name: "Date", Value: "????.??.??"}, {Name: "Round", Value: "1"}}
	for i, s := range sides {
		name := p.bot.Name()
		if i == p.human {
			name = "you"
		}
		tags = append(tags, notation.Tag{Name: s, Value: name})
	}
	b, err := notation.NewBuilder(p.codec, p.o, tags)
	if err != nil {
		return
	}
	for _, m := range p.moves {
		if b.Play(m) != nil {
			return
		}
	}
	term := ""
	if res != nil {
		term = res.Reason
	}
	b.Finish(res, term)
	fmt.Fprintf(w, "\n")
	notation.Write(w, b.Game())
}
