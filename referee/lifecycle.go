package referee

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"pbem/archive"
	"pbem/engine"
	"pbem/internal/english"
	"pbem/notation"
)

const newForm = "new GAME with ADDRESS [ADDRESS ...] [option=value ...], e.g. new castles with bob@example.org days=3"

// newGame: new GAME with ADDRESS [ADDRESS ...] [option=value ...].
func (s *session) newGame(c *cmd) error {
	args, ok := splitArgs(c.rest)
	if !ok {
		return mistake(nil, newForm, "a quote \" is not closed")
	}
	if len(args) < 3 || !strings.EqualFold(args[1], "with") {
		return mistake(nil, newForm, "new needs a game and the addresses of the other players")
	}
	codec, err := s.r.opts.Lookup(args[0])
	if err != nil {
		return mistake(nil, newForm+"; the games are "+s.r.gameIDs(), "%v", err)
	}
	rules := codec.Rules()
	o := archive.GameOptions{Days: s.r.opts.DefaultDays, Rated: true}
	people := []Address{s.from}
	playersSet := false
	for _, a := range args[2:] {
		k, v, isOpt := strings.Cut(a, "=")
		if isOpt && !strings.Contains(k, "@") {
			if err := s.r.option(&o, strings.ToLower(k), v); err != nil {
				return err
			}
			playersSet = playersSet || strings.EqualFold(k, "players")
			continue
		}
		if strings.EqualFold(a, "and") {
			continue
		}
		if strings.EqualFold(a, "private") {
			o.Private = true // not listed or shown to anyone but its players
			continue
		}
		if level, isBot, err := parseBot(a); isBot {
			if err != nil {
				return mistake(nil, newForm+"; bot or bot:N (N from 0 to 5) seats the referee's computer player", "%v", err)
			}
			n := 1
			for _, p := range people {
				if l, ok := BotLevel(p.Addr); ok && l == level {
					n++
				}
			}
			people = append(people, Address{Name: BotName(level), Addr: botAddress(level, n)})
			continue
		}
		addr := normAddr(a)
		switch {
		case !validAddr(addr):
			return mistake(nil, newForm, "%q is not a mail address", a)
		case s.r.ownAddress(addr):
			return mistake(nil, newForm, "the referee does not play")
		case addr == s.from.Addr:
			return mistake(nil, newForm, "you cannot invite yourself: name the other players")
		case slices.ContainsFunc(people, func(p Address) bool { return p.Addr == addr }):
			return mistake(nil, newForm, "%s is named twice", addr)
		}
		people = append(people, Address{Addr: addr})
	}
	if err := checkControl(o); err != nil {
		return err
	}
	n := len(people)
	if n < 2 {
		return mistake(nil, newForm, "name at least one other player")
	}
	if playersSet && o.Players != n {
		return mistake(nil, newForm, "the option players=%d does not match the %d players named (you and %s)", o.Players, n, english.Plural(n-1, "address"))
	}
	eo := engine.Options{Players: o.Players, Board: o.Board}
	sides, err := rules.Sides(eo)
	if !playersSet && (err != nil || len(sides) != n) {
		// The default seat count does not fit: ask for as many as named.
		eo.Players, o.Players = n, n
		sides, err = rules.Sides(eo)
	}
	if err != nil {
		return mistake(nil, newForm, "%v (you named %s)", err, english.Plural(n-1, "other player"))
	}
	if len(sides) != n {
		return mistake(nil, newForm, "the game %s is for %d players (%s), but you named %s", rules.ID(), len(sides), strings.Join(sides, ", "), english.Plural(n-1, "other player"))
	}
	if _, err := rules.Start(eo); err != nil {
		return mistake(nil, newForm, "%v", err)
	}
	if o.Position != "" {
		text, err := startPosition(rules, eo, o.Position)
		if err != nil {
			return err
		}
		o.Position = text
	}
	first := strings.ToLower(o.First)
	if rf, ok := rules.(engine.RandomFirst); ok && rf.RandomFirst() && first == "" {
		first = "random" // the rules have the referee draw the first player
	}
	switch first {
	case "":
	case "random":
		k, err := s.r.randIntN(n)
		if err != nil {
			return err
		}
		people = append(people[k:], people[:k]...)
	default:
		k := slices.IndexFunc(people, func(p Address) bool { return p.Addr == normAddr(o.First) })
		if k < 0 {
			return mistake(nil, "first=random or first=ADDRESS, one of the players", "the option first=%s names no player of the game", o.First)
		}
		people = append(people[k:], people[:k]...)
	}
	mine, err := s.activeGames()
	if err != nil {
		return err
	}
	if len(mine) >= s.r.opts.MaxGames {
		return mistake(nil, "", "you have %d games under way or invited, as many as you may", len(mine))
	}
	if err := s.botLimits(people); err != nil {
		return err
	}
	id, err := s.store.NewGameID(s.ctx)
	if err != nil {
		return err
	}
	ag := &archive.Game{ID: id, Game: rules.ID(), Status: archive.Invited, Options: o,
		TurnStart: s.now, Deadline: s.now.Add(days(o.Days)), Thread: s.threadID(id), Created: s.now}
	ag.Due = ag.Deadline
	// Anyone can forge a From: the inviter joins, and the invitations go
	// out, only once the inviter confirms with the token mailed to it.
	// Until then the game holds no name or text from the request.
	ag.Options.Inviter = s.from.Addr
	for i, p := range people {
		tok, err := s.r.newToken()
		if err != nil {
			return err
		}
		seat := archive.Seat{Side: sides[i], Player: Address{Addr: p.Addr}, Token: tok}
		if _, bot := BotLevel(p.Addr); bot {
			seat.Player.Name, seat.Joined = p.Name, true // the bot always accepts
		}
		ag.Seats = append(ag.Seats, seat)
	}
	g := &game{Game: ag, codec: codec, sides: sides, opts: eo}
	s.games[id] = g
	s.touch(g)
	var invited []string
	for _, p := range people {
		if _, bot := BotLevel(p.Addr); bot {
			invited = append(invited, p.Name)
		} else if p.Addr != s.from.Addr {
			invited = append(invited, p.Addr)
		}
	}
	s.mine.game, s.mine.seat = g, g.seatOf(s.from.Addr)
	s.mine.to = Address{Addr: s.from.Addr} // not even the display name of an unconfirmed request
	s.mine.add("A request from this address asks to start game #%d of %s with %s. To confirm it and send the invitations, reply \"accept\" to this mail (its subject carries your token); to drop it, reply \"decline\". If you did not ask for this game, ignore this mail: it expires on %s and nobody else hears of it.",
		id, rules.ID(), joinAnd(invited), stamp(ag.Deadline))
	s.mine.show(g)
	return nil
}

// invite sends the invitations of g once its inviter (seat) confirmed.
func (s *session) invite(g *game, seat int) {
	var invitees []int
	var invited []string
	for i := range g.Seats {
		if i != seat && !g.Seats[i].Joined {
			invitees = append(invitees, i)
			invited = append(invited, g.Seats[i].Player.Addr)
		}
	}
	rules := g.codec.Rules()
	s.tellSeats(g, invitees, "%s invites you to play %s (%s), game #%d: %s. %s\n\nTo play, reply \"accept\"; to refuse, reply \"decline\". \"help %s\" explains the game.",
		inviter(s.from), rules.ID(), rules.Summary(), g.ID, g.seating(), optionText(g.Options), rules.ID())
	if len(invited) == 0 {
		s.mine.add("You confirmed game #%d of %s: %s. %s", g.ID, rules.ID(), g.seating(), optionText(g.Options))
		return
	}
	s.mine.add("You invited %s to play %s, game #%d. %s", joinAnd(invited), rules.ID(), g.ID, optionText(g.Options))
}

// confirmed reports whether g's inviter has confirmed it (always true for
// games made before inviters confirmed).
func (g *game) confirmed() bool {
	i := g.seatOf(g.Options.Inviter)
	return g.Options.Inviter == "" || i < 0 || g.Seats[i].Joined
}

func inviter(a Address) string {
	if a.Name != "" {
		return fmt.Sprintf("%s <%s>", a.Name, a.Addr)
	}
	return a.Addr
}

// seating lists who plays which side: "Alice (A), bob@x (B)".
func (g *game) seating() string {
	var w []string
	for i := range g.Seats {
		w = append(w, g.who(i))
	}
	return joinAnd(w)
}

// controlText says a game's time control in words: "7 days per move", "30
// days + 1 day a move, at most 40 days, weekends off, grace 1 day".
func controlText(o archive.GameOptions) string {
	var t string
	if o.Base > 0 {
		t = spanText(o.Base)
		if o.Inc > 0 {
			t += " + " + spanText(o.Inc) + " a move"
		}
		if o.Max > 0 {
			t += ", at most " + spanText(o.Max)
		}
	} else {
		t = fmt.Sprintf("%s per move", english.Plural(o.Days, "day"))
	}
	if o.Weekends == "off" {
		t += ", weekends off"
	}
	if o.Grace > 0 {
		t += ", grace " + spanText(o.Grace)
	}
	return t
}

// spanText writes seconds as days, hours and minutes in words.
func spanText(sec int64) string {
	d := time.Duration(sec) * time.Second
	var parts []string
	if n := int(d / (24 * time.Hour)); n > 0 {
		parts = append(parts, english.Plural(n, "day"))
	}
	if n := int(d % (24 * time.Hour) / time.Hour); n > 0 {
		parts = append(parts, english.Plural(n, "hour"))
	}
	if n := int(d % time.Hour / time.Minute); n > 0 || len(parts) == 0 {
		parts = append(parts, english.Plural(n, "minute"))
	}
	return strings.Join(parts, " ")
}

func optionText(o archive.GameOptions) string {
	t := controlText(o)
	if !o.Rated {
		t += ", unrated"
	}
	if o.Board != "" {
		t += ", board " + o.Board
	}
	if o.Event != "" {
		t += ", event " + o.Event
	}
	if o.Round != "" {
		t += ", round " + o.Round
	}
	if o.Private {
		t += ", private"
	}
	if o.Leaver != "" {
		t += ", a leaver's seat played on by the computer (" + o.Leaver + ")"
	}
	if o.Position != "" {
		t += ", from a set-up position"
	}
	return upperFirst(t) + "."
}

// positionForm is what a position= option expects.
const positionForm = `position="TEXT", a position in the game's notation (docs/NOTATION.md, "Positions"), as pbem show --position prints it`

// maxPositionText is the longest position text an option may give.
const maxPositionText = 2000

// startPosition reads the position a game is to start from for the
// options o: its canonical text, or the reader's error (what is wrong and
// at which column) as the player's mistake. A position where the game is
// already over is refused too.
func startPosition(rules engine.Rules, o engine.Options, text string) (string, error) {
	st, err := engine.ParsePosition(rules, o, text)
	if err != nil {
		return "", mistake(nil, positionForm, "the option position=%q is not a position of %s: %v", text, rules.ID(), err)
	}
	if out := st.Outcome(); out.Over {
		return "", mistake(nil, positionForm+", with a game still to play", "the game is over in the position %q (%s)", text, out.Reason)
	}
	return st.(engine.Positioner).Position(), nil
}

// startState is the position g starts from: its set-up position, else the
// rules' start.
func (g *game) startState() (engine.State, error) {
	if g.Options.Position != "" {
		return engine.ParsePosition(g.codec.Rules(), g.opts, g.Options.Position)
	}
	return g.codec.Rules().Start(g.opts)
}

// option reads one option=value of new.
func (r *Referee) option(o *archive.GameOptions, k, v string) error {
	const opts = "players=N, board=NAME, first=random|ADDRESS, days=N, time=BASE+INC, max=CAP, weekends=off, grace=SPAN, leaver=out|bot|bot:N, rated=yes|no, private=yes|no, event=NAME, round=N, position=\"TEXT\""
	v = strings.TrimSpace(v)
	if v == "" {
		return mistake(nil, opts, "the option %s has no value", k)
	}
	text := func() error {
		v = cleanName(v)
		if len(v) > 40 {
			return mistake(nil, opts, "the option %s=%s is too long (at most 40 characters)", k, v)
		}
		return nil
	}
	switch k {
	case "players":
		n, err := strconv.Atoi(v)
		if err != nil || n < 2 || n > 16 {
			return mistake(nil, "players=N with N the number of players", "the option players=%s is not allowed", v)
		}
		o.Players = n
	case "board":
		o.Board = v
		return text()
	case "first":
		if !strings.EqualFold(v, "random") && !validAddr(normAddr(v)) {
			return mistake(nil, "first=random or first=ADDRESS", "the option first=%s is not allowed", v)
		}
		o.First = strings.ToLower(v)
		if o.First != "random" {
			o.First = normAddr(v)
		}
	case "days":
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > r.opts.MaxDays {
			return mistake(nil, fmt.Sprintf("days=N with N from 1 to %d", r.opts.MaxDays), "the option days=%s is not allowed", v)
		}
		o.Days = n
	case "time", "max", "grace", "weekends":
		return r.controlOption(o, k, v)
	case "leaver":
		const form = "leaver=out (a player who resigns or runs out of time leaves; the others play on) or leaver=bot / bot:N (the computer plays the seat to the end)"
		if strings.EqualFold(v, "out") {
			o.Leaver = ""
			break
		}
		level, isBot, err := parseBot(v)
		if !isBot || err != nil {
			return mistake(nil, form, "the option leaver=%s is not allowed", v)
		}
		o.Leaver = fmt.Sprintf("bot:%d", level)
	case "rated":
		switch strings.ToLower(v) {
		case "yes", "true", "1":
			o.Rated = true
		case "no", "false", "0":
			o.Rated = false
		default:
			return mistake(nil, "rated=yes or rated=no", "the option rated=%s is not allowed", v)
		}
	case "private":
		switch strings.ToLower(v) {
		case "yes", "true", "1":
			o.Private = true
		case "no", "false", "0":
			o.Private = false
		default:
			return mistake(nil, "private or private=yes", "the option private=%s is not allowed", v)
		}
	case "event":
		o.Event = v
		return text()
	case "round":
		o.Round = v
		return text()
	case "position":
		// Read once the seats are known (startPosition).
		if len(v) > maxPositionText {
			return mistake(nil, positionForm, "the option position= is too long (%d bytes; at most %d)", len(v), maxPositionText)
		}
		o.Position = v
	default:
		return mistake(nil, "options among "+opts, "unknown option %q", k)
	}
	return nil
}

// controlOption reads time=BASE+INC, max=CAP, grace=SPAN and
// weekends=off|on (spans in d, h and m: 30d, 1d12h, 36h).
func (r *Referee) controlOption(o *archive.GameOptions, k, v string) error {
	most := time.Duration(r.opts.MaxDays) * 24 * time.Hour * 4
	span := func(text, form string) (int64, error) {
		d, err := notation.ParseClock(strings.ToLower(text))
		if err != nil || d < 0 || d > most {
			return 0, mistake(nil, form, "the option %s=%s is not allowed: %q is not a span of days, hours and minutes (as 30d, 1d12h or 36h) up to %d days", k, v, text, most/(24*time.Hour))
		}
		return int64(d / time.Second), nil
	}
	switch k {
	case "time":
		const form = "time=BASE+INC, a bank of time and what each of your plies adds to it, as time=30d+1d (d, h, m)"
		base, inc, _ := strings.Cut(v, "+")
		b, err := span(base, form)
		if err != nil {
			return err
		}
		if b < 3600 {
			return mistake(nil, form, "the option time=%s is not allowed: a bank of at least an hour", v)
		}
		var n int64
		if inc != "" {
			if n, err = span(inc, form); err != nil {
				return err
			}
		}
		o.Base, o.Inc = b, n
	case "max":
		n, err := span(v, "max=CAP, the most a bank may hold, as max=40d")
		if err != nil {
			return err
		}
		o.Max = n
	case "grace":
		n, err := span(v, "grace=SPAN, how long a player may still move after the clock ran out, as grace=1d")
		if err != nil {
			return err
		}
		o.Grace = n
	case "weekends":
		switch strings.ToLower(v) {
		case "off":
			o.Weekends = "off"
		case "on":
			o.Weekends = ""
		default:
			return mistake(nil, "weekends=off (Saturdays and Sundays do not count) or weekends=on", "the option weekends=%s is not allowed", v)
		}
	}
	return nil
}

// checkControl refuses a control whose parts do not fit together.
func checkControl(o archive.GameOptions) error {
	if o.Max > 0 && o.Base == 0 {
		return mistake(nil, "max=CAP with time=BASE+INC", "the option max= caps a bank of time: give time=BASE+INC too")
	}
	if o.Max > 0 && o.Max < o.Base {
		return mistake(nil, "max=CAP at least the bank", "the cap max=%s is below the bank of %s", spanText(o.Max), spanText(o.Base))
	}
	return nil
}

// randIntN draws a uniform number in [0, n) from the referee's source.
func (r *Referee) randIntN(n int) (int, error) {
	var b [1]byte
	for {
		if _, err := readFull(r.opts.Rand, b[:]); err != nil {
			return 0, err
		}
		if int(b[0]) < 256-256%n {
			return int(b[0]) % n, nil
		}
	}
}

// join: an invitee accepts.
func (s *session) join(g *game, seat int) error {
	switch {
	case g.Status == archive.Playing || g.Status == archive.Over:
		return mistake(g, "accept draw or accept undo, to answer an offer", "game #%d has started already", g.ID)
	case g.Status != archive.Invited:
		return playing(g)
	case g.Seats[seat].Joined:
		return mistake(g, "the answers of "+g.waiting(), "you have accepted already")
	}
	inviting := g.Options.Inviter != "" && seat == g.seatOf(g.Options.Inviter)
	if !inviting && !g.confirmed() {
		return mistake(g, "the inviter's confirmation", "game #%d is not confirmed by its inviter yet", g.ID)
	}
	g.Seats[seat].Joined = true
	if s.from.Name != "" {
		g.Seats[seat].Player.Name = s.from.Name
	}
	s.touch(g)
	if err := s.register(s.from); err != nil {
		return err
	}
	if inviting {
		s.invite(g, seat)
	}
	if w := g.waiting(); w != "" {
		if inviting {
			s.mine.show(g)
			return nil
		}
		s.tell(g, false, "%s accepted; waiting for %s.", g.who(seat), w)
		s.mine.add("You accepted; waiting for %s.", w)
		s.mine.show(g)
		return nil
	}
	s.tell(g, false, "%s accepted: everyone has, and game #%d starts.", g.who(seat), g.ID)
	s.mine.add("You accepted: everyone has, and game #%d starts.", g.ID)
	s.mine.show(g)
	return s.start(g)
}

// waiting names the invitees who have not accepted ("" when none).
func (g *game) waiting() string {
	var w []string
	for i, st := range g.Seats {
		if !st.Joined {
			w = append(w, g.who(i))
		}
	}
	if len(w) == 0 {
		return ""
	}
	return joinAnd(w)
}

// start begins the record and the first turn.
func (s *session) start(g *game) error {
	o := g.Options
	event := o.Event
	if event == "" {
		event = fmt.Sprintf("pbem game #%d", g.ID)
	}
	round := o.Round
	if round == "" {
		round = "-"
	}
	tags := []notation.Tag{
		{Name: "Event", Value: event},
		{Name: "Site", Value: s.r.opts.Site},
		{Name: "Date", Value: s.now.Format("2006.01.02")},
		{Name: "Round", Value: round},
	}
	for _, st := range g.Seats {
		v := st.Player.Addr
		if _, bot := BotLevel(v); bot {
			v = st.Player.Name // "pbem bot (level 3)": the record names the bot, rated as a player of its own
		} else if st.Player.Name != "" {
			v = fmt.Sprintf("%s <%s>", st.Player.Name, st.Player.Addr)
		}
		tags = append(tags, notation.Tag{Name: st.Side, Value: v})
	}
	if o.Position != "" {
		tags = append(tags, notation.Tag{Name: "SetUp", Value: "1"}, notation.Tag{Name: "Position", Value: o.Position})
	}
	tags = append(tags, g.control().Tags()...)
	b, err := notation.NewBuilder(g.codec, g.opts, tags)
	if err != nil {
		panic(fmt.Sprintf("game %d: start: %v", g.ID, err))
	}
	g.b, g.tags, g.moves, g.comments = b, tags, nil, [][]string{nil}
	g.Record = notation.Format(b.Game())
	g.Status = archive.Playing
	return s.startTurn(g)
}

// declineInvitation: an invitee refuses, or the creator withdraws.
func (s *session) declineInvitation(g *game, seat int) error {
	if g.Status != archive.Invited {
		if g.Status == archive.Playing {
			return mistake(g, "decline draw or decline undo, to answer an offer; resign, to give up", "game #%d has started", g.ID)
		}
		return playing(g)
	}
	confirmed := g.confirmed()
	g.Status = archive.Declined
	g.Due = zeroTime
	s.touch(g)
	verb := "declined the invitation"
	if g.Seats[seat].Joined || seat == g.seatOf(g.Options.Inviter) {
		verb = "withdrew the invitation"
	}
	if confirmed {
		// Nobody else heard of an unconfirmed game.
		s.tell(g, false, "%s %s: game #%d is cancelled.", g.who(seat), verb, g.ID)
	}
	s.mine.add("You %s: game #%d is cancelled.", verb, g.ID)
	s.mine.show(g)
	return nil
}

// vacationCmd: vacation N pauses the sender's clocks.
func (s *session) vacationCmd(c *cmd) error {
	const form = "vacation N, with N a number of days"
	n, err := strconv.Atoi(c.rest)
	if err != nil || n < 1 {
		return mistake(nil, form, "%q is not a number of days", c.rest)
	}
	p, err := s.ownPlayer()
	if err != nil {
		return err
	}
	year := s.now.Year()
	if p.VacationYear != year {
		p.VacationYear, p.VacationDays = year, 0
	}
	limit := s.r.opts.VacationDays
	if left := limit - p.VacationDays; n > left {
		return mistake(nil, fmt.Sprintf("vacation N with N at most %d", left),
			"you have %s of vacation left in %d (%d a year)", english.Plural(left, "day"), year, limit)
	}
	if s.from.Name != "" {
		p.Address.Name = s.from.Name
	}
	from := s.now
	if p.VacationUntil.After(from) {
		from = p.VacationUntil
	}
	p.VacationUntil = from.Add(days(n))
	p.VacationDays += n
	s.touchPlayer(p)
	gs, err := s.store.ActiveGamesOf(s.ctx, s.from.Addr)
	if err != nil {
		return err
	}
	var paused, running []string
	for _, ag := range gs {
		g, err := s.adopt(ag)
		if err != nil {
			continue
		}
		seat := g.seatOf(s.from.Addr)
		if seat < 0 || g.Status != archive.Playing {
			continue
		}
		if g.Options.NoVacation {
			running = append(running, "#"+g.id())
			continue
		}
		if g.mover() == seat {
			g.Deadline = g.Deadline.Add(days(n))
			g.Reminded = g.remindedBefore(s.now)
			g.Due = g.nextDue()
		}
		paused = append(paused, "#"+g.id())
		s.tell(g, false, "%s is on vacation until %s: their clocks stop until then.", g.who(seat), stamp(p.VacationUntil))
	}
	text := fmt.Sprintf("Your vacation lasts until %s. You have %s of vacation left in %d.",
		stamp(p.VacationUntil), english.Plural(limit-p.VacationDays, "day"), year)
	if len(paused) > 0 {
		text += " Your clocks stop in game " + strings.Join(paused, ", ") + "."
	}
	if len(running) > 0 {
		text += " They go on in game " + strings.Join(running, ", ") + ": its event allows no vacation."
	}
	s.mine.label = "vacation"
	s.mine.add("%s", text)
	return nil
}

// register keeps an address (and its display name, when known) in the
// players table.
func (s *session) register(a Address) error {
	p, err := s.player(a.Addr)
	if err != nil {
		return err
	}
	if p.Version == 0 || a.Name != "" && a.Name != p.Address.Name {
		if a.Name != "" {
			p.Address.Name = a.Name
		}
		s.touchPlayer(p)
	}
	return nil
}

// authorizeAny checks that the request carries the sender's token of one
// of their games.
// ownPlayer is what is kept about the sender, for a command that changes
// the sender's own settings (mail, tz, calendar, vacation): it needs the
// sender's token of any of its games (authorizeAny). The display name is
// learnt when none is kept.
func (s *session) ownPlayer() (*archive.Player, error) {
	if err := s.authorizeAny(); err != nil {
		return nil, err
	}
	p, err := s.player(s.from.Addr)
	if err != nil {
		return nil, err
	}
	if s.from.Name != "" && p.Address.Name == "" {
		p.Address.Name = s.from.Name
	}
	return p, nil
}

func (s *session) authorizeAny() error {
	for _, c := range s.creds {
		if c.token == "" {
			continue
		}
		g, err := s.game(c.game)
		if err != nil {
			if _, ok := err.(*userError); ok {
				continue
			}
			return err
		}
		if seat := g.seatOf(s.from.Addr); seat >= 0 && tokenEqual(c.token, g.Seats[seat].Token) {
			return nil
		}
	}
	if s.verb != "" && s.verb != "vacation" {
		return mistake(nil, s.verb+" in a reply to the mail of one of your games (its subject carries [pbem #ID TOKEN])",
			"%s needs your token of one of your games", s.verb)
	}
	return mistake(nil, "vacation N in a reply to the mail of one of your games (its subject carries [pbem #ID TOKEN])",
		"vacation needs your token of one of your games")
}
