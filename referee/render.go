package referee

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"pbem/archive"
	"pbem/engine"
	"pbem/internal/english"
	"pbem/notation"
)

// stamp writes a time for mails.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// stampIn is stamp in a reader's time zone.
func stampIn(t time.Time, loc *time.Location) string {
	if loc == nil || loc == time.UTC {
		return stamp(t)
	}
	return t.In(loc).Format("2006-01-02 15:04 MST") + " (" + loc.String() + ")"
}

// clockShort writes a clock as the board's clock line does: 27d 4h, 31d,
// 5h 3m, 12m.
func clockShort(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	m := int64(d / time.Minute)
	dd, h, mm := m/(24*60), m/60%24, m%60
	switch {
	case dd > 0 && h > 0:
		return fmt.Sprintf("%dd %dh", dd, h)
	case dd > 0:
		return fmt.Sprintf("%dd", dd)
	case h > 0 && mm > 0:
		return fmt.Sprintf("%dh %dm", h, mm)
	case h > 0:
		return fmt.Sprintf("%dh", h)
	}
	return fmt.Sprintf("%dm", mm)
}

// duration writes a span in days and hours (hours and minutes under a
// day).
func duration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	d = d.Round(time.Minute)
	dd, h, m := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case dd > 0 && h > 0:
		return english.Plural(dd, "day") + " " + english.Plural(h, "hour")
	case dd > 0:
		return english.Plural(dd, "day")
	case h > 0 && m > 0:
		return english.Plural(h, "hour") + " " + english.Plural(m, "minute")
	case h > 0:
		return english.Plural(h, "hour")
	}
	return english.Plural(m, "minute")
}

// names is "A vs B vs C".
func (g *game) names() string {
	var n []string
	for i := range g.Seats {
		name := g.name(i)
		if r := []rune(name); len(r) > 24 {
			name = string(r[:24])
		}
		n = append(n, name)
	}
	return strings.Join(n, " vs ")
}

// subject is "[pbem #ID TOKEN] GAME: A vs B - X to move", with the
// recipient's token (a seat's or a watcher's; none for anyone else).
func (r *Referee) subject(g *game, token string) string {
	tag := fmt.Sprintf("[pbem #%d]", g.ID)
	if token != "" {
		tag = fmt.Sprintf("[pbem #%d %s]", g.ID, token)
	}
	var status string
	switch g.Status {
	case archive.Invited:
		status = "invitation"
	case archive.Playing:
		status = g.name(g.mover()) + " to move"
	case archive.Over:
		status = "game over, " + g.result
	default:
		status = "cancelled"
	}
	return fmt.Sprintf("%s %s: %s - %s", tag, g.kind(), g.names(), status)
}

// block is the state of a game as seat (-1: an observer) sees it: the
// board, whose turn, the clock and pending offers; or the invitation; or
// the result and the record.
func (s *session) block(g *game, seat int, heading bool) string {
	var b strings.Builder
	if heading {
		fmt.Fprintf(&b, "Game #%d, %s: %s\n\n", g.ID, g.kind(), g.names())
	}
	switch g.Status {
	case archive.Invited:
		fmt.Fprintf(&b, "%s\n", wrap(fmt.Sprintf("Game #%d, %s: %s.", g.ID, g.kind(), g.seating())))
		if st, err := g.startState(); err == nil && g.Options.Position != "" {
			// The text stays on one line, to be copied whole.
			fmt.Fprintf(&b, "It starts from this position:\n\n%s\n\nPosition: %s\n", strings.TrimRight(st.Render(seat), "\n"), g.Options.Position)
		}
		if !g.confirmed() {
			fmt.Fprintf(&b, "%s", wrap(fmt.Sprintf("Waiting for the inviter to confirm, until %s.", stamp(g.Deadline))))
			if seat >= 0 && seat == g.seatOf(g.Options.Inviter) {
				fmt.Fprintf(&b, "\n%s", wrap(`To confirm, reply "accept"; to drop it, reply "decline".`))
			}
			return b.String()
		}
		fmt.Fprintf(&b, "%s", wrap(fmt.Sprintf("Waiting for %s to accept, until %s.", g.waiting(), stamp(g.Deadline))))
		if seat >= 0 && !g.Seats[seat].Joined {
			fmt.Fprintf(&b, "\n%s", wrap(`To play, reply "accept"; to refuse, reply "decline".`))
		}
		return b.String()
	case archive.Declined, archive.Expired:
		fmt.Fprintf(&b, "%s", wrap(fmt.Sprintf("Game #%d, %s, was cancelled: %s.", g.ID, g.kind(), g.seating())))
		return b.String()
	}
	b.WriteString(strings.TrimRight(g.state().Render(seat), "\n"))
	b.WriteString("\n\n")
	if g.Status == archive.Over {
		fmt.Fprintf(&b, "%s\n\n", wrap(fmt.Sprintf("Game over after %s. Result %s.", english.Plural(g.plies(), "ply"), s.resultText(g))))
		b.WriteString(strings.TrimRight(g.Record, "\n"))
		return b.String()
	}
	var lines []string
	mover := g.mover()
	next := g.plies() + 1
	c := g.control()
	moverZone := s.zone(g.Seats[mover].Player.Addr)
	left := duration(counted(s.now, g.Deadline, c.WeekendsOff, moverZone))
	if c.WeekendsOff {
		left += " of clock time"
	}
	readerZone := time.UTC
	if seat >= 0 {
		readerZone = s.zone(g.Seats[seat].Player.Addr)
	}
	due := stampIn(g.Deadline, readerZone)
	if mover == seat {
		lines = append(lines,
			fmt.Sprintf("Ply %d: your move (you play %s). You have until %s (%s).", next, g.Seats[seat].Side, due, left),
			fmt.Sprintf("Reply with your ply as the first line, or send: move %d PLY #%d", g.ID, next))
	} else {
		lines = append(lines, fmt.Sprintf("Ply %d: %s to move, until %s (%s).", next, g.who(mover), due, left))
	}
	if g.Reminded&remindLate != 0 && g.Options.Grace > 0 {
		lines = append(lines, fmt.Sprintf("%s's clock ran out: the grace lasts until %s.", g.name(mover), stampIn(g.graceEnd(), readerZone)))
	}
	{
		var clocks []string
		for i := range g.Seats {
			d := g.clockOf(i)
			if i == mover {
				d = counted(s.now, g.Deadline, c.WeekendsOff, moverZone)
			}
			clocks = append(clocks, g.name(i)+" "+clockShort(d))
		}
		lines = append(lines, "Clocks ("+controlText(g.Options)+"): "+strings.Join(clocks, ", ")+".")
	}
	for _, o := range g.Offers {
		if o.Kind == "takeover" {
			lines = append(lines, fmt.Sprintf("Seat %s, which left, is offered to a new player, who has not accepted yet.", g.Seats[o.Seat].Side))
			continue
		}
		var waiting []string
		for i := range g.Seats {
			if i != o.By && !slices.Contains(o.Accepted, i) && !g.isOut(i) {
				waiting = append(waiting, g.name(i))
			}
		}
		switch {
		case o.By == seat:
			lines = append(lines, fmt.Sprintf("Your %s waits for %s.", offerName(o.Kind), joinAnd(waiting)))
		case seat >= 0 && !slices.Contains(o.Accepted, seat):
			lines = append(lines, fmt.Sprintf("%s has made %s: reply \"accept %s\" or \"decline %s\".", g.who(o.By), anOffer(o.Kind), o.Kind, o.Kind))
		default:
			lines = append(lines, fmt.Sprintf("%s has made %s, waiting for %s.", g.who(o.By), anOffer(o.Kind), joinAnd(waiting)))
		}
	}
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(wrap(l))
	}
	return b.String()
}

// resultText explains the result of a game that is over: "1-0, by
// resignation: Alice (First) wins", "A>B=C, A reached 21: first Alice (A);
// second Bob (B) and Carol (C)".
func (s *session) resultText(g *game) string {
	ranks, err := notation.ParseResult(g.codec, g.sides, g.result)
	if err != nil || ranks == nil {
		return g.result
	}
	text := g.result
	switch g.termination {
	case "resign":
		text += ", by resignation"
	case "time":
		text += ", on time"
	case "agreement":
		text += ", by agreement"
	case "forfeit":
		text += ", by forfeit (a player withdrew from the tournament)"
	default:
		if o := g.line().Outcome(); o.Over {
			text += ", " + o.Reason
		}
	}
	places := slices.Compact(slices.Sorted(slices.Values(ranks)))
	switch {
	case len(places) == 1:
		return text + ": a draw"
	case len(ranks) == 2:
		return text + ": " + g.who(slices.Index(ranks, places[0])) + " wins"
	}
	var parts []string
	for k, r := range places {
		var at []string
		for i, x := range ranks {
			if x == r {
				at = append(at, g.who(i))
			}
		}
		parts = append(parts, ordinal(k+1)+" "+joinAnd(at))
	}
	return text + ": " + strings.Join(parts, "; ")
}

func ordinal(n int) string {
	if n >= 1 && n <= 8 {
		return []string{"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth"}[n-1]
	}
	return fmt.Sprintf("%dth", n)
}

// footer ends every mail.
func (s *session) footer(g *game, seat int) string {
	if g != nil && seat >= 0 && archive.Active(g.Status) {
		return wrap("pbem referee. Reply to this mail with your ply on the first line, or with commands, one per line (\"help\" lists them). The subject carries your token for this game: keep it to yourself.")
	}
	return wrap("pbem referee. Send \"help\" for the commands.")
}

// gameIDs lists the games of the catalog.
func (r *Referee) gameIDs() string {
	var ids []string
	for _, c := range r.opts.Games() {
		ids = append(ids, c.Rules().ID())
	}
	if len(ids) == 0 {
		return "(none yet)"
	}
	return strings.Join(ids, ", ")
}

const shortHelp = `Commands, one per line: new GAME with ADDRESS ..., accept, decline,
a ply (in a reply to a game's mail), move GAMEID PLY [#N],
if THEIRPLY then YOURPLY ..., conditions [GAMEID],
pass, show [GAMEID], games, record GAMEID, preview GAMEID PLY ...,
resign, draw, accept draw, decline draw, undo, accept undo, decline
undo, vacation N, say TEXT, watch GAMEID, unwatch, digest games
daily|off, address NEW, help [GAME].
Send "help" for more.`

// helpText lists the commands and the games.
func (r *Referee) helpText() string {
	var b strings.Builder
	b.WriteString(` pbem plays board games by mail. Commands go one per line in the
 body; case does not matter. Quoted text, signatures, greetings and
 other lines that are no command are skipped. The subject (without
 Re:, Fwd: and the [pbem #ID TOKEN] tag) is read as a command only
 when the body holds none, so a command in both runs once.

 new GAME with ADDRESS [ADDRESS ...] [option=value ...]
     Start a game and invite the other players. Options: players=N,
     board=NAME, first=random|ADDRESS (who plays the first side;
     default: you, then the others in the order given), days=N (days
     per move, default 7), time=BASE+INC (a bank of time instead, and
     what each of your plies adds: time=30d+1d; d, h, m), max=CAP (the
     most a bank holds), weekends=off (Saturdays and Sundays of the
     mover's time zone do not count), grace=SPAN (a late player may
     still move so long; the others are told), leaver=out|bot|bot:N
     (with three or more seats, a player who resigns or runs out of
     time leaves and the others play on, or the computer plays the
     seat to the end), rated=yes|no,
     event=NAME, round=N, position="TEXT" (start from that position,
     written as pbem show --position prints it; the side to move is
     the position's), and private (only its players can see the
     game, here and on the web).
     You confirm with "accept" in reply to the referee's answer; then
     the invitees get their invitations and answer "accept" or
     "decline". An ADDRESS may be "bot" or "bot:N" (N from 0, random
     moves, to 5, the strongest): the referee's computer player.
 PLY
     Your move: the ply, in the game's notation, on a line of its own
     in a reply to the game's mail.
 move GAMEID PLY [#N]
     A move in any of your games; #N is the number of the ply you
     expect to play (a stale move is refused).
 if THEIRPLY [THEIRPLY ...] then YOURPLY [THEIRPLY ... YOURPLY ...]
     A conditional line, in a reply to the game's mail: when the
     others' next plies are those before "then", the referee plays
     yours at once, and so on along the line. Send it after your ply
     when it is your turn, alone when it is not. Several lines form a
     tree (lines that share a start are one branch); a mail with if
     lines replaces the ones you had. In rpp with more than two seats,
     name the ply of every seat that moves before you, with its label:
     if Y:Lg1-f2 G:Le9-e8 then R:Lb2-b3. Only you ever see your lines;
     a played answer is marked {conditional} in the record.
 conditions [GAMEID]  Your pending conditional lines; "conditions
                      clear [GAMEID]" removes them.
 pass                 Pass, where the rules allow it.
 show [GAMEID]        The board.
 games                Your games and whose turn it is.
 record GAMEID        The game record.
 preview GAMEID PLY ... [keep]
                      The board after these plies; nothing is played.
                      keep keeps the line with your private notes.
 resign               Give up.
 draw                 Offer a draw; the others "accept draw" or
                      "decline draw".
 undo                 Ask to take back your last ply; the others
                      "accept undo" or "decline undo".
 vacation N           Stop your clocks for N days (30 days a year).
 tz ZONE              Your time zone (as Europe/Paris): deadlines are
                      shown in it; weekends off are its weekends.
 takeover GAMEID SIDE ADDRESS
                      Invite ADDRESS to take the seat of a player who
                      left (three or more seats), before every seat
                      still in has played once since; it answers
                      "accept" to the invitation.
 say TEXT             A message to the other players.
 say to SIDE[,SIDE...] TEXT
                      A message to those sides' players only (sides as
                      the game names them, or the players' addresses).
                      For several lines: say [to ...] alone on its
                      line, the text, then a line end.
 note GAMEID TEXT     Keep a private note on one of your games (for
                      several lines: note GAMEID alone on its line,
                      the text, then a line end). Only you ever see
                      your notes: your own board mails of the game end
                      with the last three. At most 100 notes, 100 KiB.
 notes GAMEID         All your notes on the game.
 analyse GAMEID [level=N] [side=SIDE]
                      The computer's analysis of a finished game (one
                      of yours, or any public game), level 1 to 4
                      (default 3), of every side or one: the record,
                      with ? and ?? where its choice scores clearly
                      better, and its line. It comes later, in a mail
                      of its own.
 publish GAMEID       Show your latest analysis of a finished public
                      game of yours on its web page (names, never
                      addresses). Your notes are never shown.
 watch GAMEID         Get every board of a game; "unwatch" stops.
 tournament new "NAME" GAME roundrobin|double|swiss|tables [rounds=N]
     [days=N] [time=BASE+INC] [max=CAP] [weekends=off] [grace=SPAN]
     [vacation=no] [rated] [players=K] [byes=N] [accelerated]
     [position="TEXT"]
     Direct a tournament, once you confirm it with "tournament
     confirm T" in a reply to the mail that comes; then, in a reply
     with its token, tournament invite T ADDRESS ..., tournament
     start T and tournament round T N DATE (round N opens on DATE).
     A Swiss lets each player ask for byes=N half-point byes (1 if
     not said); accelerated gives the top half virtual points in the
     first rounds (FIDE's Baku method). tournament absent T ROUND
     ADDRESS: that player misses the round, no point. position=
     starts every game from that position (a thematic event).
 join T               Enter tournament T (a reply confirms it).
 tournament standings T, tournament pairings T [ROUND]
                      A tournament's standings, a round's pairings.
 tournament bye T ROUND [zero]
                      Sit out a Swiss round not yet paired: half a
                      point (up to the tournament's byes=N), or none
                      with zero; you are paired again after it.
 tournament withdraw T
                      Leave a tournament (games under way are lost).
 digest daily|each    A tournament's standings once a day, or after
                      each result.
 digest games daily [HH:MM]|off
                      A mail a day at HH:MM of your time zone (08:00
                      if not said) listing the games waiting on your
                      move, when one waits; off stops it.
 unsubscribe KIND TOKEN
                      Stop watch, digest or tournament mail (what the
                      unsubscribe link of such a mail sends).
 address NEW          Move your games, ratings and settings to the
                      address NEW: a code goes there, and "confirm
                      CODE" from NEW does it. address add NEW (the
                      same confirmation) and address remove ADDRESS:
                      several addresses of yours.
 mail text|html       Mail as plain text only, or (the default) with
                      an HTML part too, the board as a picture.
 calendar [revoke]    The address of a calendar of your deadlines (for
                      your calendar program); revoke makes a new one
                      and the old one stops working.
 help [GAME]          This help, or a game's rules and notation.

 Commands about a game need your token for it: reply to the game's
 mail (its subject carries [pbem #ID TOKEN]), or write to its reply
 address. Each move has a time limit (days=N, or the bank of
 time=BASE+INC); reminders come after half of it and a day before the
 end, and then (after any grace) the game is lost on time.

 Games:`)
	for _, c := range r.opts.Games() {
		fmt.Fprintf(&b, "\n %s:", c.Rules().ID())
		for _, l := range strings.Split(wrapAt(c.Rules().Summary(), Width-5), "\n") {
			fmt.Fprintf(&b, "\n     %s", l)
		}
	}
	if len(r.opts.Games()) == 0 {
		b.WriteString("\n (none yet)")
	}
	return b.String()
}

// gameHelp is help GAME: summary, sides, rules, notation.
func gameHelp(c notation.Codec) string {
	rules := c.Rules()
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n", wrap(rules.ID()+": "+rules.Summary()))
	if sides, err := rules.Sides(zeroOptions); err == nil {
		fmt.Fprintf(&b, "%s\n\n", wrap("Sides, in seat order: "+strings.Join(sides, ", ")+"."))
	}
	fmt.Fprintf(&b, " Rules\n\n%s\n\n Notation\n\n%s\n\n", strings.TrimRight(rules.Help(), "\n"), strings.TrimRight(c.Notation(), "\n"))
	fmt.Fprintf(&b, "Start a game: new %s with ADDRESS", rules.ID())
	return b.String()
}

var zeroOptions engine.Options

// gameURL is the web page of g when the referee has one (Options.WebBaseURL)
// and g may be shown there: started and not private. "" otherwise.
func (r *Referee) gameURL(g *game) string {
	if r.opts.WebBaseURL == "" || g == nil || g.Options.Private || g.Record == "" {
		return ""
	}
	return fmt.Sprintf("%s/g/%d", strings.TrimRight(r.opts.WebBaseURL, "/"), g.ID)
}
