package referee

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"pbem/archive"
	"pbem/engine"
	"pbem/internal/english"
	"pbem/notation"
)

// cmd is one command line.
type cmd struct {
	line string // as written
	verb string // lower case
	rest string // after the verb
}

// commandVerbs are the first words of the commands.
var commandVerbs = []string{"new", "move", "pass", "show", "games", "record", "help", "preview", "resign",
	"draw", "accept", "decline", "undo", "vacation", "say", "watch", "unwatch", "tournament", "join", "digest", "mail", "conditions", "tz", "takeover", "calendar",
	"note", "unsubscribe", "address", "confirm", "notes", "analyse", "analyze", "publish"}

func isVerb(v string) bool { return slices.Contains(commandVerbs, v) }

// line handles one line: a command, or (bare) a ply in the game the
// request is about.
func (s *session) line(l string, bare bool) error {
	head, _, _ := strings.Cut(l, "\n")
	if verbOf(l) != "note" {
		head = l // a note's text may run over several lines; other commands' may not
	}
	if len(head) > MaxLineBytes {
		return mistake(nil, fmt.Sprintf("a command or ply on a line of at most %d bytes", MaxLineBytes),
			"this line is %d bytes long, too long to read", len(l))
	}
	v := verbOf(l)
	if isVerb(v) {
		c := &cmd{line: l, verb: v, rest: strings.TrimSpace(l[len(firstWord(l)):])}
		return s.dispatch(c)
	}
	if bare {
		g, err := s.contextGame()
		if err != nil {
			return err
		}
		text, expect := splitExpect(l)
		return s.move(g, text, expect, true)
	}
	e := mistake(nil, "one command per line, as listed below (a ply alone only in a reply to a game's mail)", "this is not a command")
	e.help = true
	return e
}

func (s *session) dispatch(c *cmd) error {
	s.verb = c.verb
	switch c.verb {
	case "help":
		return s.help(c)
	case "new":
		return s.newGame(c)
	case "move":
		return s.moveCmd(c)
	case "pass":
		return s.passCmd(c)
	case "show":
		return s.showCmd(c)
	case "games":
		return s.gamesCmd(c)
	case "record":
		return s.recordCmd(c)
	case "preview":
		return s.previewCmd(c)
	case "resign":
		return s.resignCmd(c)
	case "draw":
		return s.drawCmd(c)
	case "accept", "decline":
		return s.answerCmd(c)
	case "undo":
		return s.undoCmd(c)
	case "vacation":
		return s.vacationCmd(c)
	case "say":
		return s.sayCmd(c)
	case "watch":
		return s.watchCmd(c)
	case "unwatch":
		return s.unwatchCmd(c)
	case "tournament":
		return s.tournamentCmd(c)
	case "join":
		return s.joinCmd(c)
	case "digest":
		if f := strings.Fields(strings.ToLower(c.rest)); len(f) > 0 && f[0] == "games" {
			return s.gamesDigestCmd(c)
		}
		return s.digestCmd(c)
	case "conditions":
		return s.conditionsCmd(c)
	case "tz":
		return s.tzCmd(c)
	case "takeover":
		return s.takeoverCmd(c)
	case "mail":
		return s.mailCmd(c)
	case "calendar":
		return s.calendarCmd(c)
	case "unsubscribe":
		return s.unsubscribeCmd(c)
	case "address":
		return s.addressCmd(c)
	case "confirm":
		return s.confirmCmd(c)
	case "note":
		return s.noteCmd(c)
	case "notes":
		return s.notesCmd(c)
	case "analyse", "analyze":
		return s.analyseCmd(c)
	case "publish":
		return s.publishCmd(c)
	}
	panic("unhandled verb " + c.verb)
}

// parseID reads a game id: 12 or #12.
func parseID(s string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimPrefix(s, "#"), 10, 64)
	return n, err == nil && n > 0
}

// splitExpect splits a trailing "#N" (the expected ply number) off a ply.
func splitExpect(text string) (string, int) {
	f := strings.Fields(text)
	if len(f) > 1 {
		last := f[len(f)-1]
		if n, err := strconv.Atoi(strings.TrimPrefix(last, "#")); err == nil && strings.HasPrefix(last, "#") && n > 0 {
			return strings.Join(f[:len(f)-1], " "), n
		}
	}
	return strings.TrimSpace(text), 0
}

// noArgs refuses words after a command that takes none.
func noArgs(c *cmd, form string) error {
	if c.rest != "" {
		return mistake(nil, form, "unexpected %q after %s", c.rest, c.verb)
	}
	return nil
}

// gameArg resolves the game a command is about: the id given, else the
// game of the mail answered.
func (s *session) gameArg(c *cmd, form string) (*game, error) {
	if c.rest != "" {
		f := strings.Fields(c.rest)
		id, ok := parseID(f[0])
		if !ok || len(f) > 1 {
			return nil, mistake(nil, form, "%q is not a game number", c.rest)
		}
		return s.visibleGame(id)
	}
	g, err := s.contextGame()
	if err != nil || g != nil {
		return g, err
	}
	return nil, mistake(nil, form, "which game? This message is no reply to a game's mail, and names no game")
}

// gameThen reads "GAMEID ARG ..." for a command: the game, and the text
// after its id. what names the arguments for the error ("a ply").
func (s *session) gameThen(c *cmd, form, what string) (*game, string, error) {
	f := strings.Fields(c.rest)
	if len(f) < 2 {
		return nil, "", mistake(nil, form, "a game number and %s must follow %s", what, c.verb)
	}
	id, ok := parseID(f[0])
	if !ok {
		return nil, "", mistake(nil, form, "%q is not a game number", f[0])
	}
	g, err := s.visibleGame(id)
	if err != nil {
		return nil, "", err
	}
	return g, strings.TrimSpace(c.rest[strings.Index(c.rest, f[0])+len(f[0]):]), nil
}

// contextOnly is the game of a command that takes no game id: the game of
// the mail answered.
func (s *session) contextOnly(c *cmd, form string) (*game, error) {
	if err := noArgs(c, form); err != nil {
		return nil, err
	}
	g, err := s.contextGame()
	if err != nil || g != nil {
		return g, err
	}
	return nil, mistake(nil, "a reply to the game's mail (its subject carries [pbem #ID TOKEN])",
		"%s needs a game: this message is no reply to a game's mail", c.verb)
}

// playing refuses a command on a game that is not under way.
func playing(g *game) error {
	switch g.Status {
	case archive.Playing:
		return nil
	case archive.Invited:
		return mistake(g, "accept or decline (the game starts when every player has accepted)", "game #%d has not started yet", g.ID)
	case archive.Over:
		return mistake(g, "record "+g.id()+" for its record", "game #%d is over", g.ID)
	}
	return mistake(nil, "", "game #%d was cancelled", g.ID)
}

func (s *session) help(c *cmd) error {
	if c.rest == "" {
		s.mine.label = "help"
		s.mine.add(s.r.helpText())
		return nil
	}
	codec, err := s.r.opts.Lookup(strings.Fields(c.rest)[0])
	if err != nil {
		return mistake(nil, "help, or help GAME with GAME one of "+s.r.gameIDs(), "%v", err)
	}
	s.mine.label = "help " + codec.Rules().ID()
	s.mine.add(gameHelp(codec))
	return nil
}

// moveCmd: move GAMEID PLY [#N].
func (s *session) moveCmd(c *cmd) error {
	const form = "move GAMEID PLY, optionally followed by #N, the number of the ply"
	g, rest, err := s.gameThen(c, form, "a ply")
	if err != nil {
		return err
	}
	text, expect := splitExpect(rest)
	return s.move(g, text, expect, false)
}

// passCmd: pass, in the game of the mail answered.
func (s *session) passCmd(c *cmd) error {
	text, expect := splitExpect(c.line)
	if text != firstWord(c.line) {
		return mistake(nil, "pass, optionally followed by #N", "unexpected %q after pass", c.rest)
	}
	g, err := s.contextOnly(&cmd{verb: "pass"}, "")
	if err != nil {
		return err
	}
	text = "pass"
	if g.b != nil {
		// Where plies carry the seat (rpp with more than 2), the command
		// stands for the sender's labelled pass.
		st := g.b.Line().State()
		if _, err := g.codec.Decode(st, text); err != nil && st.ToMove() < len(g.sides) {
			if seat, err := s.authorize(g); err == nil && seat < len(g.sides) {
				text = g.sides[seat] + ":pass"
			}
		}
	}
	return s.move(g, text, expect, false)
}

// move plays a ply for the sender.
func (s *session) move(g *game, text string, expect int, bare bool) error {
	seat, err := s.authorize(g)
	if err != nil {
		return err
	}
	if err := playing(g); err != nil {
		return err
	}
	next := g.plies() + 1
	if expect > 0 && expect != next {
		last := ""
		if n := g.plies(); n > 0 {
			last = fmt.Sprintf("; the last ply, %d, was %s", n, g.b.Game().Record.Main.Plies[n-1].Canon)
		}
		e := mistake(g, fmt.Sprintf("a ply for ply %d (or no #N)", next),
			"stale move: you sent it for ply %d, but the next ply is %d%s; nothing was played", expect, next, last)
		e.next = next
		return e
	}
	if mover := g.mover(); mover != seat {
		return mistake(g, "your ply when it is your turn", "it is not your turn: %s is to move", g.who(mover))
	}
	if text == "" {
		return mistake(g, s.plyForm(g), "a ply must follow")
	}
	before := g.state()
	clock := g.clockOf(seat)
	m, err := g.codec.Decode(before, text)
	if _, leave := m.(engine.Leave); leave && err == nil {
		return mistake(g, s.plyForm(g)+", or resign to leave the game", "%s is how the record marks a seat that left: to leave, send resign", text)
	}
	if err == nil {
		err = g.play(m)
	}
	if err != nil {
		return withSuggestions(g.codec, before, text, s.badPly(g, text, err, bare))
	}
	s.charge(g, seat, clock)
	canon := g.codec.Encode(before, m)
	note := ""
	if n, ok := before.(engine.Narrator); ok {
		if t := n.Narrate(m, g.state()); t != "" {
			note = " " + t
		}
	}
	s.mine.add("You played %s (ply %d).%s", canon, next, note)
	s.mine.show(g)
	s.tell(g, true, "%s played %s (ply %d).%s", g.who(seat), canon, next, note)
	return s.afterPly(g)
}

func (s *session) badPly(g *game, text string, err error, bare bool) error {
	if errors.Is(err, engine.ErrIllegalMove) {
		return mistake(g, s.plyForm(g), "%s is illegal here: %s", text, strings.TrimPrefix(err.Error(), "illegal: "))
	}
	var se *notation.SyntaxError
	msg := err.Error()
	if errors.As(err, &se) {
		msg = se.Msg
	}
	if bare {
		return mistake(g, s.plyForm(g)+", or a command", "this is neither a command nor a ply in %s notation (%s)", g.kind(), msg)
	}
	return mistake(g, s.plyForm(g), "%q is not a ply in %s notation: %s", text, g.kind(), msg)
}

// plyForm describes a ply of g with a legal example.
func (s *session) plyForm(g *game) string {
	form := fmt.Sprintf("a ply in %s notation", g.kind())
	if g.b != nil && !g.line().Outcome().Over {
		st := g.state()
		var m engine.Move
		if smp, ok := st.(engine.Sampler); ok {
			m = smp.RandomMove(rand.New(rand.NewPCG(uint64(g.ID), uint64(g.plies()))))
		} else if legal := st.Legal(); len(legal) > 0 {
			m = legal[len(legal)-1]
		}
		if m != nil {
			form += fmt.Sprintf(" such as %s (legal here; \"help %s\" explains the notation)", g.codec.Encode(st, m), g.kind())
			return form
		}
	}
	return form + fmt.Sprintf(" (\"help %s\" explains it)", g.kind())
}

// afterPly: pending offers lapse, then the game ends or the next turn
// starts.
func (s *session) afterPly(g *game) error {
	keep := g.takeovers()
	for _, o := range g.Offers {
		if o.Kind == "takeover" {
			continue
		}
		what := "draw offer"
		if o.Kind == "undo" {
			what = "undo request"
		}
		s.tell(g, false, "%s's %s lapsed with the ply.", g.name(o.By), what)
		if g.seatOf(s.from.Addr) >= 0 {
			s.mine.add("%s's %s lapsed with the ply.", g.name(o.By), what)
		}
	}
	g.Offers = keep
	s.lapseTakeovers(g)
	if o := g.line().Outcome(); o.Over {
		s.finish(g, o, "normal", "")
		return nil
	}
	return s.startTurn(g)
}

// finish ends a game: the record gets its result and termination, and the
// game goes to the archive. The callers tell why; the mails end with the
// result and the record.
func (s *session) finish(g *game, o engine.Outcome, termination, comment string) {
	if comment != "" {
		g.comment(comment)
	}
	if g.line().Outcome().Over {
		g.b.Finish(nil, "")
		g.b.Game().Record.SetTag("Termination", "normal")
	} else {
		g.b.Finish(&o, termination)
	}
	game := g.b.Game()
	g.Record = notation.Format(game)
	g.result = game.Record.Result
	g.termination, _ = game.Record.Tag("Termination")
	g.Status = archive.Over
	g.Offers = nil
	g.Due, g.Reminded = zeroTime, 0
	recs, _ := notation.Parse("", []byte(g.Record))
	var tags []archive.Tag
	if len(recs) == 1 {
		for _, t := range recs[0].Tags {
			tags = append(tags, archive.Tag{Name: t.Name, Value: t.Value})
		}
	}
	s.entries = append(s.entries, &archive.Entry{GameID: g.ID, Game: g.kind(), Result: g.result, Tags: tags,
		Record: g.Record, Rated: g.Options.Rated, Created: s.now})
	s.touch(g)
	if s.mine != nil && g.seatOf(s.from.Addr) >= 0 {
		s.mine.show(g)
	}
}

// leaveOutcome is the outcome when seat leaves a game (resignation, time):
// with two sides the other wins; with more, the leaver is last and the
// others are ranked as the game would settle now.
func leaveOutcome(g *game, seat int, reason string) engine.Outcome {
	n := len(g.Seats)
	if n == 2 {
		return engine.Win(2, 1-seat, reason)
	}
	o := engine.Settle(g.state(), reason)
	rank := slices.Clone(o.Rank)
	rank[seat] = n + 1
	return engine.Outcome{Over: true, Rank: rank, Reason: reason}
}

func (s *session) resignCmd(c *cmd) error {
	g, err := s.contextOnly(c, "resign, alone on its line")
	if err != nil {
		return err
	}
	seat, err := s.authorize(g)
	if err != nil {
		return err
	}
	if g.Status == archive.Invited {
		return mistake(g, "decline, to cancel the invitation", "game #%d has not started", g.ID)
	}
	if err := playing(g); err != nil {
		return err
	}
	if g.isOut(seat) {
		return mistake(g, "", "you have left game #%d already", g.ID)
	}
	if g.canLeave(seat) && g.Options.Leaver != "" {
		return s.handOver(g, seat, "resigned")
	}
	if g.canLeave(seat) {
		s.mine.add("You resigned game #%d: you leave it, and the others play on.", g.ID)
		return s.leave(g, seat, engine.LeaveResign, g.who(seat)+" resigned")
	}
	why := g.who(seat) + " resigned"
	s.tell(g, true, "%s.", why)
	s.mine.add("You resigned game #%d.", g.ID)
	s.finish(g, leaveOutcome(g, seat, why), "resign", why)
	return nil
}

// canLeave reports whether seat may leave g with the others playing on:
// a game of three or more seats whose rules allow it (engine.Leaver;
// RULES.md says what becomes of the pieces). When two seats are still in,
// the leave leaves one, which wins by the rules.
func (g *game) canLeave(seat int) bool {
	l, ok := g.state().(engine.Leaver)
	return ok && len(g.Seats) > 2 && l.CanLeave(seat)
}

// isOut reports whether seat has left g (or been eliminated) while the
// game goes on: it never moves again, and offers do not wait for it.
func (g *game) isOut(seat int) bool {
	if g.b == nil || len(g.Seats) < 3 || g.line().Outcome().Over {
		return false
	}
	l, ok := g.state().(engine.Leaver)
	return ok && !l.CanLeave(seat)
}

// leave takes seat out of g (resignation or time) and the game goes on:
// the record gets the leave's token (Y:resign), and when one seat is
// left it wins by the rules. The turn moves on only if the seat was to
// move.
func (s *session) leave(g *game, seat int, reason, why string) error {
	wasMover := g.mover() == seat
	if err := g.play(engine.Leave{Seat: seat, Reason: reason}); err != nil {
		panic(fmt.Sprintf("game %d: %s cannot leave: %v", g.ID, g.Seats[seat].Side, err))
	}
	g.Offers = g.takeovers()
	if o := g.line().Outcome(); o.Over {
		s.tell(g, true, "%s and leaves the game: %s is the last seat in.", why, g.who(g.lastIn()))
		s.finish(g, o, "normal", "")
		return nil
	}
	s.tell(g, true, "%s and leaves the game; the others play on. Their pieces stay where they stand: they never move again, and can be captured.", why)
	if s.mine != nil {
		s.mine.show(g)
	}
	if wasMover {
		return s.startTurn(g)
	}
	s.touch(g)
	return nil
}

// handOver gives the seat of a player who resigned or ran out of time to
// the referee's computer player (the game's leaver=bot:N), which plays it
// to the end: the record's side tag names the player with
// archive.PlayedByComputer (ratings leave the seat out) and a comment
// says where the computer took over. The player gets a mail of its own
// and its token no longer works.
func (s *session) handOver(g *game, seat int, verb string) error {
	level, _, err := parseBot(g.Options.Leaver)
	if err != nil {
		return err
	}
	n := 1
	for _, st := range g.Seats {
		if l, ok := BotLevel(st.Player.Addr); ok && l == level {
			n++
		}
	}
	token, err := s.r.newToken()
	if err != nil {
		return err
	}
	old := g.Seats[seat]
	who := g.who(seat)
	was := old.Player.Addr
	for i := range g.tags {
		if g.tags[i].Name == old.Side {
			g.tags[i].Value += " " + archive.PlayedByComputer
			was = g.tags[i].Value
		}
	}
	g.b.Game().Record.SetTag(old.Side, was)
	g.comment(fmt.Sprintf("%s %s; the computer (level %d) plays the seat from here", who, verb, level))
	g.Seats[seat] = archive.Seat{Side: old.Side, Player: Address{Name: BotName(level), Addr: botAddress(level, n)}, Token: token, Joined: true}
	g.Offers = nil
	text := fmt.Sprintf("%s %s; the referee's computer player (level %d) plays the seat from here to the end of the game.", who, verb, level)
	s.tell(g, true, "%s", text)
	if s.mine != nil && normAddr(old.Player.Addr) == s.from.Addr {
		s.mine.add("You resigned game #%d: the referee's computer player (level %d) plays your seat to the end, and the result names you \"%s\". Your token for the game no longer works.", g.ID, level, archive.PlayedByComputer)
	} else {
		d := &draft{to: old.Player, seat: -1, kind: "handed-over", label: fmt.Sprintf("game #%d: the computer plays your seat", g.ID)}
		d.add("%s Your token for game #%d no longer works.", text, g.ID)
		s.extra = append(s.extra, d)
	}
	if g.mover() == seat {
		return s.startTurn(g)
	}
	s.touch(g)
	return nil
}

// lastIn is the seat that won by the others leaving.
func (g *game) lastIn() int {
	o := g.line().Outcome()
	return slices.Index(o.Rank, 1)
}

// offer returns the pending offer of a kind.
func (g *game) offer(kind string) *archive.Offer {
	for i := range g.Offers {
		if g.Offers[i].Kind == kind {
			return &g.Offers[i]
		}
	}
	return nil
}

// others lists the names of the seats other than seat.
func (g *game) others(seat int, except []int) string {
	var names []string
	for i := range g.Seats {
		if i != seat && !slices.Contains(except, i) && !g.isOut(i) {
			names = append(names, g.who(i))
		}
	}
	return joinAnd(names)
}

func (s *session) drawCmd(c *cmd) error {
	g, err := s.contextOnly(c, "draw, alone on its line")
	if err != nil {
		return err
	}
	seat, err := s.authorize(g)
	if err != nil {
		return err
	}
	if err := playing(g); err != nil {
		return err
	}
	if g.isOut(seat) {
		return mistake(g, "", "you have left game #%d: the seats still in decide", g.ID)
	}
	if o := g.offer("draw"); o != nil {
		if o.By == seat {
			return mistake(g, "the answer of "+g.others(seat, o.Accepted), "you have offered a draw already")
		}
		return s.acceptOffer(g, seat, "draw")
	}
	g.Offers = append(g.Offers, archive.Offer{Kind: "draw", By: seat, Ply: g.plies()})
	s.tell(g, false, "%s offers a draw%s: reply \"accept draw\" or \"decline draw\". A ply declines it.", g.who(seat), g.settles())
	s.mine.add("You offered a draw%s to %s.", g.settles(), g.others(seat, nil))
	s.mine.show(g)
	return nil
}

// settles explains, for a game whose position decides the result of an
// agreement (engine.Settler), what that result would be now.
func (g *game) settles() string {
	o := engine.Settle(g.state(), "agreement")
	if slices.Min(o.Rank) == slices.Max(o.Rank) {
		return ""
	}
	return fmt.Sprintf(" (in %s the position decides the result of an agreement: %s now)", g.kind(), notation.FormatResult(g.codec, g.sides, o))
}

// lastPlyOf is the index of the last ply seat played, or -1.
func (g *game) lastPlyOf(seat int) int {
	lines := g.b.Game().Lines
	for i := len(g.moves) - 1; i >= 0; i-- {
		if lines[i].State().ToMove() == seat {
			return i
		}
	}
	return -1
}

// plyTexts are the canonical plies from index i on.
func (g *game) plyTexts(i int) []string {
	var out []string
	for _, p := range g.b.Game().Record.Main.Plies[i:] {
		out = append(out, p.Canon)
	}
	return out
}

func (s *session) undoCmd(c *cmd) error {
	g, err := s.contextOnly(c, "undo, alone on its line")
	if err != nil {
		return err
	}
	seat, err := s.authorize(g)
	if err != nil {
		return err
	}
	if err := playing(g); err != nil {
		return err
	}
	if g.offer("undo") != nil {
		return mistake(g, "accept undo or decline undo", "an undo request is pending already")
	}
	if g.isOut(seat) {
		return mistake(g, "", "you have left game #%d", g.ID)
	}
	last := g.lastPlyOf(seat)
	if last < 0 {
		return mistake(g, "undo after one of your plies", "you have played no ply to take back")
	}
	for _, m := range g.moves[last:] {
		if _, ok := m.(engine.Leave); ok {
			return mistake(g, "", "a seat has left the game since your last ply: undo cannot bring it back")
		}
	}
	g.Offers = append(g.Offers, archive.Offer{Kind: "undo", By: seat, Ply: g.plies()})
	what := fmt.Sprintf("ply %d (%s)", last+1, g.plyTexts(last)[0])
	if after := g.plies() - last - 1; after > 0 {
		what += fmt.Sprintf(" and the %s after it", english.Plural(after, "ply"))
	}
	s.tell(g, false, "%s asks to take back %s: reply \"accept undo\" or \"decline undo\". A ply declines it.", g.who(seat), what)
	s.mine.add("You asked %s to let you take back %s.", g.others(seat, nil), what)
	s.mine.show(g)
	return nil
}

// answerCmd: accept / decline, of an invitation, a draw or an undo.
func (s *session) answerCmd(c *cmd) error {
	kind := strings.ToLower(strings.TrimRight(c.rest, ".!"))
	form := c.verb + ", " + c.verb + " draw or " + c.verb + " undo"
	if kind != "" && kind != "draw" && kind != "undo" {
		return mistake(nil, form, "unexpected %q after %s", c.rest, c.verb)
	}
	g, err := s.contextOnly(&cmd{verb: c.verb}, form)
	if err != nil {
		return err
	}
	if kind == "" && g.b != nil {
		if ok, err := s.answerTakeover(g, c.verb); ok || err != nil {
			return err
		}
	}
	seat, err := s.authorize(g)
	if err != nil {
		return err
	}
	switch {
	case kind == "" && c.verb == "accept":
		return s.join(g, seat)
	case kind == "" && c.verb == "decline":
		return s.declineInvitation(g, seat)
	}
	if err := playing(g); err != nil {
		return err
	}
	if g.isOut(seat) {
		return mistake(g, "", "you have left game #%d: the seats still in decide", g.ID)
	}
	if c.verb == "accept" {
		return s.acceptOffer(g, seat, kind)
	}
	o := g.offer(kind)
	if o == nil {
		return mistake(g, "decline "+kind+" only when one is pending", "there is no %s to decline", offerName(kind))
	}
	if o.By == seat {
		s.tell(g, false, "%s withdrew the %s.", g.who(seat), offerName(kind))
		s.mine.add("You withdrew your %s.", offerName(kind))
	} else {
		s.tell(g, false, "%s declined the %s.", g.who(seat), offerName(kind))
		s.mine.add("You declined the %s.", offerName(kind))
	}
	g.Offers = slices.DeleteFunc(g.Offers, func(x archive.Offer) bool { return x.Kind == kind })
	s.mine.show(g)
	return nil
}

func offerName(kind string) string {
	if kind == "undo" {
		return "undo request"
	}
	return "draw offer"
}

// anOffer is offerName with its article.
func anOffer(kind string) string {
	if kind == "undo" {
		return "an undo request"
	}
	return "a draw offer"
}

func (s *session) acceptOffer(g *game, seat int, kind string) error {
	o := g.offer(kind)
	switch {
	case o == nil:
		return mistake(g, "accept "+kind+" only when one is pending", "there is no %s to accept", offerName(kind))
	case o.By == seat:
		return mistake(g, "the answer of the others", "you cannot accept your own %s", offerName(kind))
	case slices.Contains(o.Accepted, seat):
		return mistake(g, "the answer of "+g.others(o.By, o.Accepted), "you have accepted the %s already", offerName(kind))
	}
	o.Accepted = append(o.Accepted, seat)
	waiting := 0
	for i := range g.Seats {
		if i != o.By && !slices.Contains(o.Accepted, i) && !g.isOut(i) {
			waiting++
		}
	}
	if waiting > 0 {
		s.tell(g, false, "%s accepts the %s of %s; waiting for %s.", g.who(seat), offerName(kind), g.name(o.By), g.others(o.By, o.Accepted))
		s.mine.add("You accepted the %s; waiting for %s.", offerName(kind), g.others(o.By, o.Accepted))
		s.mine.show(g)
		return nil
	}
	by := o.By
	g.Offers = slices.DeleteFunc(g.Offers, func(x archive.Offer) bool { return x.Kind == kind })
	if kind == "draw" {
		s.tell(g, true, "%s accepts the draw offer of %s: the game ends by agreement.", g.who(seat), g.name(by))
		s.mine.add("You accepted the draw offer: the game ends by agreement.")
		s.finish(g, engine.Settle(g.state(), "agreement"), "agreement", "")
		return nil
	}
	last := g.lastPlyOf(by)
	taken := g.plyTexts(last)
	if err := g.rebuild(last); err != nil {
		panic(fmt.Sprintf("game %d: undo: %v", g.ID, err))
	}
	g.comment(fmt.Sprintf("%s took back %s (undo agreed)", g.who(by), strings.Join(taken, " ")))
	g.Offers = nil
	what := fmt.Sprintf("ply %d (%s)", last+1, strings.Join(taken, " "))
	if len(taken) > 1 {
		what = fmt.Sprintf("plies %d-%d (%s)", last+1, last+len(taken), strings.Join(taken, " "))
	}
	text := fmt.Sprintf("Undo: %s taken back at the request of %s.", what, g.who(by))
	s.tell(g, true, "%s", text)
	s.mine.add(text)
	s.mine.show(g)
	return s.startTurn(g)
}

func (s *session) sayCmd(c *cmd) error {
	const form = "say TEXT, or say to SIDE[,SIDE...] TEXT for some players only (sides as the game names them, or their addresses); say [to ...] alone on its line, then the text, then end, for several lines"
	to, rest, isTo := recipients(c.rest)
	if isTo && len(to) == 0 {
		return mistake(nil, form, "say to needs the sides the message is for")
	}
	var lines []string
	for _, l := range strings.Split(rest, "\n") {
		lines = append(lines, strings.TrimRight(printable(l), " "))
	}
	text := strings.TrimSpace(strings.Join(lines, "\n"))
	if text == "" {
		return mistake(nil, form, "say needs a message")
	}
	g, err := s.contextOnly(&cmd{verb: "say"}, "")
	if err != nil {
		return err
	}
	seat, err := s.authorize(g)
	if err != nil {
		return err
	}
	if g.Status == archive.Declined || g.Status == archive.Expired {
		return playing(g)
	}
	if r := []rune(text); len(r) > 1000 {
		text = string(r[:1000]) + "..."
	}
	if len(to) == 0 {
		s.tell(g, false, "%s", preformatted+wrap(g.who(seat)+" says:")+"\n"+indentLines(text))
		s.mine.add("Your message went to %s.", g.others(seat, nil))
		return nil
	}
	var seats []int
	for _, x := range to {
		i := g.sideArg(x)
		switch {
		case i < 0:
			return mistake(g, form, "%q is not a side of game #%d (its sides: %s)", x, g.ID, strings.Join(g.sides, ", "))
		case i == seat:
			return mistake(g, form, "%q is your own side", x)
		}
		if !slices.Contains(seats, i) {
			seats = append(seats, i)
		}
	}
	slices.Sort(seats)
	var names []string
	for _, i := range seats {
		names = append(names, g.who(i))
	}
	others := "you"
	if len(seats) > 1 {
		others = "you and the others named: " + joinAnd(names)
	}
	s.tellSeats(g, seats, "%s", preformatted+wrap(fmt.Sprintf("%s says, to %s only:", g.who(seat), others))+"\n"+indentLines(text))
	s.mine.add("Your message went to %s only.", joinAnd(names))
	return nil
}

// recipients reads the start of say's text: "to SIDE[,SIDE...] TEXT"
// (the sides joined by commas, blanks allowed after them) gives the sides
// and TEXT; anything else is all text.
func recipients(rest string) (to []string, text string, isTo bool) {
	rest = strings.TrimLeft(rest, " \t")
	w, after, _ := strings.Cut(rest, " ")
	if !strings.EqualFold(w, "to") {
		return nil, rest, false
	}
	rest = strings.TrimLeft(after, " \t")
	for rest != "" {
		w, after, _ := strings.Cut(rest, " ")
		w, nl, hasNL := strings.Cut(w, "\n")
		if hasNL {
			after = nl + " " + after
		}
		for _, x := range strings.Split(w, ",") {
			if x != "" {
				to = append(to, x)
			}
		}
		rest = strings.TrimLeft(after, " ")
		if !strings.HasSuffix(w, ",") && !strings.HasPrefix(rest, ",") || hasNL {
			break
		}
		rest = strings.TrimLeft(rest, ", ")
	}
	return to, rest, true
}

// sideArg is the seat a word names in g: a side ("Y", "yellow" as the
// record names it), or the address of its player; -1 for none.
func (g *game) sideArg(x string) int {
	for i, st := range g.Seats {
		if strings.EqualFold(st.Side, x) || strings.EqualFold(normAddr(st.Player.Addr), normAddr(x)) {
			return i
		}
	}
	return -1
}

// indentLines indents a message of one or more lines by two blanks,
// each line wrapped on its own (its own breaks kept).
func indentLines(text string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		lead := len(l) - len(strings.TrimLeft(l, " "))
		lead = min(lead, 8)
		for _, w := range strings.Split(wrapAt(l, Width-2-lead), "\n") {
			out = append(out, strings.TrimRight("  "+strings.Repeat(" ", lead)+w, " "))
		}
	}
	return strings.Join(out, "\n")
}

// wrapAt fills text to width columns.
func wrapAt(text string, width int) string {
	var lines []string
	l := ""
	for _, w := range strings.Fields(text) {
		if l != "" && len(l)+1+len(w) > width {
			lines = append(lines, l)
			l = ""
		}
		if l != "" {
			l += " "
		}
		l += w
	}
	return strings.Join(append(lines, l), "\n")
}

// gameWords reads a command of n words, the first a game number: the game
// (as visibleGame finds it) and the words. wrong says what is missing when
// the count is not n.
func (s *session) gameWords(c *cmd, form string, n int, wrong string) (*game, []string, error) {
	f := strings.Fields(c.rest)
	if len(f) != n {
		return nil, nil, mistake(nil, form, "%s", wrong)
	}
	id, ok := parseID(f[0])
	if !ok {
		return nil, nil, mistake(nil, form, "%q is not a game number", f[0])
	}
	g, err := s.visibleGame(id)
	return g, f, err
}

// watchCmd: watch GAMEID. A stranger's From can be forged, so watching
// takes two mails: the first makes a token and mails it to the address;
// a reply that carries it (watch GAMEID again, in reply) confirms. Until
// then the address gets nothing more of the game.
func (s *session) watchCmd(c *cmd) error {
	const form = "watch GAMEID"
	g, _, err := s.gameWords(c, form, 1, "watch needs one game number")
	if err != nil {
		return err
	}
	switch {
	case g.seatOf(s.from.Addr) >= 0:
		return mistake(g, "watch with the number of a game you do not play", "you play in game #%d: you get every board already", g.ID)
	case !archive.Active(g.Status):
		return mistake(nil, "record "+g.id()+" for its record", "game #%d is over", g.ID)
	}
	i := g.watchedBy(s.from.Addr)
	switch {
	case i >= 0 && g.Observers[i].Confirmed:
		if s.hasToken(g.ID, g.Observers[i].Token) && s.unsubscribed(s.from.Addr, archive.UnsubWatch) {
			// asked with the watcher's token: undo a one-click unsubscription
			s.resubscribe = append(s.resubscribe, archive.Unsubscription{Addr: s.from.Addr, Kind: archive.UnsubWatch})
			s.mine.add("Watcher mail was stopped for %s (unsubscribed); it comes again.", s.from.Addr)
		}
		s.mine.add("You watch game #%d already.", g.ID)
		s.mine.show(g)
		return nil
	case i >= 0 && s.hasToken(g.ID, g.Observers[i].Token):
		g.Observers[i].Confirmed = true
		g.Observers[i].Name = s.from.Name
		s.touch(g)
		if s.unsubscribed(s.from.Addr, archive.UnsubWatch) {
			s.resubscribe = append(s.resubscribe, archive.Unsubscription{Addr: s.from.Addr, Kind: archive.UnsubWatch})
		}
		s.mine.add("You now watch game #%d: you will get every board. \"unwatch\" in a reply to a mail of the game stops that.", g.ID)
		s.mine.show(g)
		return nil
	case i < 0:
		if len(g.Observers) >= s.r.opts.MaxObservers {
			return mistake(nil, "", "game #%d has as many watchers as it may have (%d)", g.ID, s.r.opts.MaxObservers)
		}
		tok, err := s.r.newToken()
		if err != nil {
			return err
		}
		g.Observers = append(g.Observers, archive.Observer{Address: Address{Addr: s.from.Addr}, Token: tok})
		s.touch(g)
	}
	s.mine.game, s.mine.seat = g, -1
	s.mine.add("To watch game #%d from this address, reply to this mail with \"watch %d\": the subject carries the token that confirms it. If you did not ask to watch the game, ignore this mail: nothing more of the game will come.", g.ID, g.ID)
	return nil
}

// visibleGame is game for a command that names a game by number: a
// private game is, to whoever may not see it (see maySee), refused exactly
// as a game that does not exist.
func (s *session) visibleGame(id int64) (*game, error) {
	g, err := s.game(id)
	if err != nil {
		return nil, err
	}
	if !s.maySee(g) {
		return nil, noGame(id)
	}
	return g, nil
}

// noGame is the refusal of a game that does not exist, or that the sender
// may not see: the two read the same.
func noGame(id int64) error {
	return mistake(nil, "the number of one of your games (the games command lists them)", "there is no game #%d", id)
}

// maySee reports whether the request may see g: any game that is not
// private; a private one only with the token of the sender's seat or of
// the sender's confirmed watch (a From can be forged, a token cannot).
func (s *session) maySee(g *game) bool {
	if !g.Options.Private || s.req == nil || s.bot {
		return true
	}
	if seat := g.seatOf(s.from.Addr); seat >= 0 && s.hasToken(g.ID, g.Seats[seat].Token) {
		return true
	}
	i := g.watchedBy(s.from.Addr)
	return i >= 0 && g.Observers[i].Confirmed && s.hasToken(g.ID, g.Observers[i].Token)
}

// hasToken reports whether the request carries token for game id.
func (s *session) hasToken(id int64, token string) bool {
	for _, c := range s.creds {
		if c.game == id && tokenEqual(c.token, token) {
			return true
		}
	}
	return false
}

// unwatchCmd: unwatch needs the watcher's token, so that it cannot be
// forged.
func (s *session) unwatchCmd(c *cmd) error {
	g, err := s.gameArg(c, "unwatch in a reply to the game's mail, or unwatch GAMEID")
	if err != nil {
		return err
	}
	i := g.watchedBy(s.from.Addr)
	if i < 0 {
		return mistake(nil, "unwatch GAMEID for a game you watch (games lists them)", "you do not watch game #%d", g.ID)
	}
	if !s.hasToken(g.ID, g.Observers[i].Token) {
		return mistake(nil, fmt.Sprintf("unwatch in a reply to a mail of game #%d (its subject carries [pbem #%d TOKEN])", g.ID, g.ID),
			"unwatch needs your token for game #%d", g.ID)
	}
	g.Observers = slices.Delete(g.Observers, i, i+1)
	s.touch(g)
	s.mine.label = "unwatch"
	s.mine.add("You no longer watch game #%d.", g.ID)
	return nil
}

func (s *session) recordCmd(c *cmd) error {
	g, err := s.gameArg(c, "record GAMEID")
	if err != nil {
		return err
	}
	if g.Record == "" {
		return mistake(nil, "record GAMEID of a game that has started", "game #%d has no record: it has not started", g.ID)
	}
	rec := strings.TrimRight(g.Record, "\n")
	if g.seatOf(s.from.Addr) < 0 {
		rec = g.redact(rec) // names, never addresses, for whoever does not play
	}
	s.mine.label = fmt.Sprintf("record of game #%d", g.ID)
	s.mine.add("The record of game #%d:", g.ID)
	s.mine.addPre(rec)
	return nil
}

func (s *session) showCmd(c *cmd) error {
	if c.rest == "" && s.context == 0 {
		gs, err := s.activeGames()
		if err != nil {
			return err
		}
		if len(gs) != 1 {
			if err := s.listGames(gs); err != nil {
				return err
			}
			return mistake(nil, "show GAMEID", "which game? This message is no reply to a game's mail")
		}
		g, err := s.adopt(gs[0])
		if err != nil {
			return err
		}
		if !s.maySee(g) {
			return noGame(g.ID)
		}
		s.mine.show(g)
		return nil
	}
	g, err := s.gameArg(c, "show GAMEID")
	if err != nil {
		return err
	}
	s.mine.show(g)
	return nil
}

func (s *session) gamesCmd(c *cmd) error {
	if err := noArgs(c, "games"); err != nil {
		return err
	}
	gs, err := s.activeGames()
	if err != nil {
		return err
	}
	s.mine.label = "your games"
	return s.listGames(gs)
}

// activeGames are the sender's games under way or invited, as stored or
// as this message changed them.
func (s *session) activeGames() ([]*archive.Game, error) {
	stored, err := s.store.ActiveGamesOf(s.ctx, s.from.Addr)
	if err != nil {
		return nil, err
	}
	byID := map[int64]*archive.Game{}
	for _, ag := range stored {
		byID[ag.ID] = ag
	}
	for id, g := range s.games {
		byID[id] = g.Game
	}
	var gs []*archive.Game
	for _, ag := range byID {
		mine := slices.ContainsFunc(ag.Seats, func(st archive.Seat) bool { return normAddr(st.Player.Addr) == s.from.Addr }) ||
			slices.ContainsFunc(ag.Observers, func(o archive.Observer) bool { return o.Confirmed && normAddr(o.Addr) == s.from.Addr })
		if mine && archive.Active(ag.Status) {
			gs = append(gs, ag)
		}
	}
	slices.SortFunc(gs, func(a, b *archive.Game) int { return int(a.ID - b.ID) })
	return gs, nil
}

// listGames lists games for the sender.
func (s *session) listGames(gs []*archive.Game) error {
	var b strings.Builder
	listed := 0
	for _, ag := range gs {
		g, err := s.adopt(ag)
		if err != nil {
			var ue *userError
			if errors.As(err, &ue) {
				fmt.Fprintf(&b, "\n#%d %s: %s", ag.ID, ag.Game, ue.reason)
				listed++
				continue
			}
			return err
		}
		if !s.maySee(g) {
			continue // a private game is listed only with its token
		}
		listed++
		seat := g.seatOf(s.from.Addr)
		fmt.Fprintf(&b, "\n#%d %s: %s", g.ID, g.kind(), g.names())
		status := ""
		switch {
		case g.Status == archive.Invited && seat >= 0 && !g.Seats[seat].Joined:
			status = "invitation: reply \"accept\" to its mail"
		case g.Status == archive.Invited:
			status = "waiting for " + g.waiting()
		case seat >= 0 && g.mover() == seat:
			status = fmt.Sprintf("your move, ply %d, %s left", g.plies()+1, duration(g.Deadline.Sub(s.now)))
		default:
			status = fmt.Sprintf("%s to move, ply %d", g.name(g.mover()), g.plies()+1)
		}
		if seat < 0 {
			status += " (you watch)"
		}
		fmt.Fprintf(&b, "\n    %s", status)
	}
	if listed == 0 {
		s.mine.add("You (%s) have no games under way. Start one with: new GAME with ADDRESS", s.from.Addr)
		return nil
	}
	s.mine.add("%s", fmt.Sprintf("Your games (%s):\n", s.from.Addr)+b.String())
	return nil
}

func (s *session) previewCmd(c *cmd) error {
	const form = "preview GAMEID PLY ..., and keep at the end to keep the line with your notes"
	g, rest, err := s.gameThen(c, form, "at least one ply")
	if err != nil {
		return err
	}
	if err := playing(g); err != nil {
		return err
	}
	f := strings.Fields(rest)
	keep := len(f) > 1 && strings.EqualFold(f[len(f)-1], "keep")
	if keep {
		rest = strings.Join(f[:len(f)-1], " ")
		if err := s.noteGame(g); err != nil {
			return err
		}
	}
	seat := g.seatOf(s.from.Addr)
	line := g.line()
	plies := joinPlies(strings.Fields(rest))
	var canon []string
	for i, p := range plies {
		st := line.State()
		m, err := g.codec.Decode(st, p)
		var next *engine.Line
		if err == nil {
			next, err = line.Play(m)
		}
		if err != nil {
			var se *notation.SyntaxError
			msg := err.Error()
			if errors.As(err, &se) {
				msg = se.Msg
			}
			return &userError{reason: fmt.Sprintf("preview ply %d, %s, after %s: %s", i+1, p, orStart(canon), msg),
				expected: s.plyForm(g), board: strings.TrimRight(st.Render(seat), "\n")}
		}
		canon = append(canon, g.codec.Encode(st, m))
		line = next
	}
	st := line.State()
	text := fmt.Sprintf("Preview of game #%d after %s (nothing was played):\n\n%s", g.ID, strings.Join(canon, " "), strings.TrimRight(st.Render(seat), "\n"))
	if o := line.Outcome(); o.Over {
		text += "\n\nThe game would be over: " + o.Reason + "."
	} else {
		text += fmt.Sprintf("\n\nThen ply %d: %s to move.", g.plies()+len(canon)+1, g.who(st.ToMove()))
	}
	s.mine.label = fmt.Sprintf("preview of game #%d", g.ID)
	s.mine.add("%s", text)
	if keep {
		n, err := s.keepNote(g, fmt.Sprintf("Line after ply %d: %s", g.plies(), strings.Join(canon, " ")))
		if err != nil {
			return err
		}
		s.mine.add("The line is kept with your notes on game #%d (%s; only you ever see them).", g.ID, english.Plural(n, "note"))
	}
	return nil
}

func orStart(canon []string) string {
	if len(canon) == 0 {
		return "the current position"
	}
	return strings.Join(canon, " ")
}

// joinAnd joins names as "A, B and C".
func joinAnd(names []string) string {
	switch len(names) {
	case 0:
		return "nobody"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
