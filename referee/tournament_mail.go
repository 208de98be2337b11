package referee

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"pbem/archive"
	"pbem/engine"
	"pbem/internal/english"
	"pbem/notation"
	"pbem/referee/tournament"
)

// tourState is what a session does to tournaments: those it read (by id),
// those it changed, what happened in each (for the mails), and the mails.
type tourState struct {
	byID    map[int64]*archive.Tournament
	changed []*archive.Tournament
	news    map[int64]*bulletin
	mails   []*archive.Outgoing
	created bool // a tournament new was read (one a message)
	invites int  // addresses invited by this message
}

// bulletin is what happened in one tournament during a session; the
// players hear of it in one mail each (see flushTournaments).
type bulletin struct {
	notes   []string // withdrawals, a round that could not be paired
	results []string // "Round 2, board 1: Ann - Bob  1-0"
	opened  []int    // rounds paired
	done    bool     // the last round ended
}

// tournamentForm lists the tournament commands for error messages.
const tournamentForm = `tournament new "NAME" GAME roundrobin|double|swiss|tables [rounds=N] [days=N] [rated] [players=K] [byes=N] [accelerated], tournament confirm T, tournament invite T ADDRESS ..., tournament start T, tournament round T N DATE, tournament standings T, tournament pairings T [ROUND], tournament bye T ROUND [zero], tournament absent T ROUND ADDRESS, tournament withdraw T`

// tourTagRE matches a tournament's subject tag: [pbem T7 k7x9qabc].
var tourTagRE = regexp.MustCompile(`(?i)\[pbem\s+T(\d+)(?:\s+([a-z0-9]+))?\s*\]`)

// tournamentTag reads the tournament id and token of a subject tag.
func tournamentTag(subject string) (id int64, token string) {
	m := tourTagRE.FindStringSubmatch(subject)
	if m == nil {
		return 0, ""
	}
	id, _ = strconv.ParseInt(m[1], 10, 64)
	return id, strings.ToLower(m[2])
}

// parseTournamentID reads T7, t7, #7 or 7.
func parseTournamentID(s string) (int64, bool) {
	s = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(s, "T"), "t"), "#")
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// tstore is the store the session's tournaments are read from.
func (s *session) tstore() Store {
	return s.store
}

// tournament loads a tournament once per session; one that does not exist
// is a mistake.
// A tournament its director has not confirmed is, but to the director
// with its token, refused the same way.
func (s *session) tournament(id int64) (*archive.Tournament, error) {
	t, ok := s.tour.byID[id]
	if !ok {
		ts := s.tstore()
		var err error
		t, err = ts.Tournament(s.ctx, id)
		if errors.Is(err, archive.ErrNotFound) {
			return nil, noTournament(id)
		}
		if err != nil {
			return nil, err
		}
		s.keepTournament(t)
	}
	if t.Status == archive.Proposed && (s.req == nil || !s.isDirector(t)) {
		return nil, noTournament(id)
	}
	return t, nil
}

func noTournament(id int64) error {
	return mistake(nil, "the number of a tournament, e.g. T1", "there is no tournament T%d", id)
}

func (s *session) keepTournament(t *archive.Tournament) {
	if s.tour.byID == nil {
		s.tour.byID = map[int64]*archive.Tournament{}
		s.tour.news = map[int64]*bulletin{}
	}
	s.tour.byID[t.ID] = t
}

// touchTournament marks t to be stored and returns its bulletin.
func (s *session) touchTournament(t *archive.Tournament) *bulletin {
	s.keepTournament(t)
	if !slices.Contains(s.tour.changed, t) {
		s.tour.changed = append(s.tour.changed, t)
	}
	b := s.tour.news[t.ID]
	if b == nil {
		b = &bulletin{}
		s.tour.news[t.ID] = b
	}
	return b
}

// tournamentToken reports whether the request carries the sender's valid
// token of a tournament (as a player or its director).
func (s *session) tournamentToken() (bool, error) {
	id, tok := tournamentTag(s.req.Subject)
	if id == 0 || tok == "" {
		return false, nil
	}
	t, err := s.tournament(id)
	var ue *userError
	if errors.As(err, &ue) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return s.isDirector(t) || s.isEntrant(t, true), nil
}

// isDirector reports whether the sender is t's director and gave the
// director's token.
func (s *session) isDirector(t *archive.Tournament) bool {
	id, tok := tournamentTag(s.req.Subject)
	return id == t.ID && normAddr(t.Director.Addr) == s.from.Addr && tokenEqual(tok, t.DirectorToken)
}

// isEntrant reports whether the sender is entered in t (joined, when
// joined is set) and gave their token (or, for the director, the
// director's).
func (s *session) isEntrant(t *archive.Tournament, joined bool) bool {
	i := t.Player(s.from.Addr)
	if i < 0 || joined && !t.Players[i].Joined {
		return false
	}
	id, tok := tournamentTag(s.req.Subject)
	return id == t.ID && (tokenEqual(tok, t.Players[i].Token) || s.isDirector(t))
}

// tournamentArg reads the tournament a command names (T7), else the one
// of the mail answered.
func (s *session) tournamentArg(args []string, form string) (*archive.Tournament, []string, error) {
	if len(args) > 0 {
		if id, ok := parseTournamentID(args[0]); ok {
			t, err := s.tournament(id)
			return t, args[1:], err
		}
	}
	if id, _ := tournamentTag(s.req.Subject); id > 0 {
		t, err := s.tournament(id)
		return t, args, err
	}
	return nil, nil, mistake(nil, form, "which tournament? Name it, e.g. T1")
}

// tournamentCmd: tournament new|invite|start|standings|pairings|withdraw.
func (s *session) tournamentCmd(c *cmd) error {
	args, ok := splitArgs(c.rest)
	if !ok {
		return mistake(nil, tournamentForm, "a quote \" is not closed")
	}
	if len(args) == 0 {
		return mistake(nil, tournamentForm, "tournament needs what to do")
	}
	sub, args := strings.ToLower(args[0]), args[1:]
	if sub == "new" {
		if s.tour.created {
			return mistake(nil, "one tournament new in a message", "this message asks for a second tournament")
		}
		s.tour.created = true
		return s.tournamentNew(args)
	}
	form := "tournament " + sub + " T"
	t, rest, err := s.tournamentArg(args, form)
	if err != nil {
		return err
	}
	switch sub {
	case "confirm":
		return s.tournamentConfirm(t, rest)
	case "invite":
		return s.tournamentInvite(t, rest)
	case "start":
		return s.tournamentStart(t, rest)
	case "round":
		return s.tournamentRound(t, rest)
	case "standings":
		if len(rest) > 0 {
			return mistake(nil, "tournament standings T", "unexpected %q", strings.Join(rest, " "))
		}
		return s.tournamentStandings(t)
	case "pairings":
		return s.tournamentPairings(t, rest)
	case "withdraw":
		return s.tournamentWithdraw(t, rest)
	case "bye":
		return s.tournamentBye(t, rest)
	case "absent":
		return s.tournamentAbsent(t, rest)
	}
	return mistake(nil, tournamentForm, "unknown tournament command %q", sub)
}

// formats maps the format words of tournament new to the core's formats.
var formats = map[string]tournament.Format{
	"roundrobin": tournament.RoundRobin,
	"double":     tournament.DoubleRoundRobin,
	"swiss":      tournament.Swiss,
	"tables":     tournament.Tables,
}

func formatWord(f tournament.Format) string {
	for w, x := range formats {
		if x == f {
			return w
		}
	}
	return ""
}

// tournamentNew: tournament new "NAME" GAME FORMAT [rounds=N] [days=N]
// [rated] [players=K] [byes=N] [accelerated] (the last two Swiss only).
func (s *session) tournamentNew(args []string) error {
	const form = `tournament new "NAME" GAME roundrobin|double|swiss|tables [rounds=N] [days=N] [time=BASE+INC] [max=CAP] [weekends=off] [grace=SPAN] [vacation=no] [rated] [players=K] [byes=N] [accelerated] [position="TEXT"]`
	if len(args) < 3 {
		return mistake(nil, form, "tournament new needs a name, a game and a format")
	}
	name := cleanName(args[0])
	if name == "" {
		return mistake(nil, form, "the tournament needs a name")
	}
	codec, err := s.r.opts.Lookup(args[1])
	if err != nil {
		return mistake(nil, form+"; the games are "+s.r.gameIDs(), "%v", err)
	}
	rules := codec.Rules()
	f, ok := formats[strings.ToLower(args[2])]
	if !ok {
		return mistake(nil, form, "%q is not a format: roundrobin, double, swiss or tables", args[2])
	}
	// Anyone can forge a From: the tournament is only proposed, and shows
	// no text of the request to anyone, until the address confirms it
	// with the token mailed to it.
	t := &archive.Tournament{Name: name, Game: rules.ID(), Format: formatWord(f), Days: s.r.opts.DefaultDays,
		Director: Address{Addr: s.from.Addr}, Status: archive.Proposed, ByesAllowed: DefaultByes}
	swissOnly := "" // an option only a Swiss takes
	for _, a := range args[3:] {
		k, v, _ := strings.Cut(strings.ToLower(a), "=")
		n, nerr := strconv.Atoi(v)
		switch {
		case k == "position":
			// The text keeps its case; read once the seats are known.
			_, t.Position, _ = strings.Cut(a, "=")
			if t.Position = strings.TrimSpace(t.Position); t.Position == "" || len(t.Position) > maxPositionText {
				return mistake(nil, positionForm, "the option position= needs a position text of at most %d bytes", maxPositionText)
			}
		case k == "rated" && (v == "" || v == "yes"):
			t.Rated = true
		case k == "rated" && v == "no":
			t.Rated = false
		case k == "rounds" && nerr == nil && n >= 1 && n <= 50:
			t.Rounds = n
		case k == "days" && nerr == nil && n >= 1 && n <= s.r.opts.MaxDays:
			t.Days = n
		case k == "players" && nerr == nil && n >= 2 && n <= 16:
			t.Seats = n
		case k == "time" || k == "max" || k == "grace" || k == "weekends":
			o := archive.GameOptions{Control: t.Control}
			if err := s.r.controlOption(&o, k, v); err != nil {
				return err
			}
			t.Control = o.Control
		case k == "vacation" && (v == "no" || v == "yes"):
			t.Control.NoVacation = v == "no"
		case k == "byes" && nerr == nil && n >= 0 && n <= MaxByes:
			t.ByesAllowed = n
			swissOnly = a
		case k == "accelerated" && v == "":
			t.Accelerated = true
			swissOnly = a
		default:
			return mistake(nil, form+fmt.Sprintf(" (rounds from 1 to 50, days from 1 to %d, players from 2 to 16, byes from 0 to %d)", s.r.opts.MaxDays, MaxByes), "%q is not an option of tournament new", a)
		}
	}
	if err := checkControl(archive.GameOptions{Control: t.Control}); err != nil {
		return err
	}
	if swissOnly != "" && f != tournament.Swiss {
		return mistake(nil, form, "%q is an option of a Swiss tournament, not of a %s", swissOnly, f)
	}
	eo := engine.Options{Players: t.Seats}
	sides, err := rules.Sides(eo)
	if err == nil && t.Seats == 0 {
		t.Seats = len(sides)
	}
	if err == nil {
		_, err = rules.Start(eo)
	}
	if err != nil {
		return mistake(nil, form, "%s cannot be played so: %v", rules.ID(), err)
	}
	if t.Position != "" {
		text, err := startPosition(rules, tableOptions(rules, t.Seats), t.Position)
		if err != nil {
			return err
		}
		t.Position = text
	}
	switch {
	case f == tournament.Tables && t.Rounds == 0:
		return mistake(nil, form, "a tables tournament needs rounds=N")
	case f == tournament.Swiss && t.Rounds == 0:
		return mistake(nil, form, "a Swiss tournament needs rounds=N")
	case f != tournament.Tables && t.Seats != 2:
		return mistake(nil, form, "a game of %d players is played at tables: use the format tables", t.Seats)
	case f == tournament.RoundRobin || f == tournament.DoubleRoundRobin:
		t.Rounds = 0 // as many as the players need
	}
	id, err := s.tstore().NewTournamentID(s.ctx)
	if err != nil {
		return err
	}
	t.ID = id
	if t.DirectorToken, err = s.r.newToken(); err != nil {
		return err
	}
	seed, err := s.r.randIntN(1 << 7)
	if err != nil {
		return err
	}
	t.Seed = int64(seed)
	s.touchTournament(t)
	s.tourReply(t, "confirm", append([]string{
		fmt.Sprintf("A request from this address asks to create tournament T%d: %s. To confirm it and direct it, reply \"tournament confirm T%d\" to this mail (its subject carries your director's token). If you did not ask for this, ignore this mail: nobody else hears of it.",
			t.ID, settings(t), t.ID)}, positionParas(t)...)...)
	return nil
}

// tournamentConfirm: the director confirms a tournament with the token
// mailed to the address that asked for it; until then nobody else sees
// it, and it invites nobody.
func (s *session) tournamentConfirm(t *archive.Tournament, rest []string) error {
	if len(rest) > 0 {
		return mistake(nil, "tournament confirm T", "unexpected %q", strings.Join(rest, " "))
	}
	if !s.isDirector(t) {
		return directorNeeded(t, "tournament confirm")
	}
	if t.Status != archive.Proposed {
		return mistake(nil, "", "tournament T%d is confirmed already", t.ID)
	}
	t.Status = archive.Entering
	t.Director.Name = s.from.Name
	s.touchTournament(t)
	s.tourReply(t, "new tournament", append([]string{
		fmt.Sprintf("You direct tournament T%d, %s: %s. The subject of this mail carries your director's token: keep it to yourself.", t.ID, t.Name, settings(t))},
		append(positionParas(t),
			fmt.Sprintf("Players enter with \"join T%d\" (each confirms with a token mailed to them). In a reply to this mail: \"tournament invite T%d ADDRESS ...\" invites players (each must accept), and \"tournament start T%d\" starts the first round with the players who have joined.", t.ID, t.ID, t.ID))...)...)
	return nil
}

// settings describes a tournament: "castles, Swiss, 4 rounds, 3 days per
// move, rated".
func settings(t *archive.Tournament) string {
	f := formats[t.Format]
	w := []string{t.Game}
	if f == tournament.Tables {
		w = append(w, fmt.Sprintf("tables of %d", t.Seats))
	} else {
		w = append(w, f.String())
	}
	if t.Rounds > 0 {
		w = append(w, english.Plural(t.Rounds, "round"))
	}
	w = append(w, controlText(archive.GameOptions{Days: t.Days, Control: t.Control}))
	if t.Control.NoVacation {
		w = append(w, "no vacation")
	}
	if t.Rated {
		w = append(w, "rated")
	} else {
		w = append(w, "unrated")
	}
	if f == tournament.Swiss && t.ByesAllowed != DefaultByes {
		w = append(w, english.Plural(t.ByesAllowed, "half-point bye")+" a player")
	}
	if f == tournament.Swiss && t.Accelerated {
		w = append(w, "accelerated")
	}
	if t.Position != "" {
		w = append(w, "every game from a set-up position")
	}
	return strings.Join(w, ", ")
}

// positionParas is the position a thematic tournament's games start from,
// on a line of its own to be copied whole (none for the rules' start).
func positionParas(t *archive.Tournament) []string {
	if t.Position == "" {
		return nil
	}
	return []string{preformatted + "Position: " + t.Position}
}

// tableOptions are the options of a tournament game of n players: the
// rules' default when it seats n, else players=n.
func tableOptions(rules engine.Rules, n int) engine.Options {
	if sides, err := rules.Sides(engine.Options{}); err == nil && len(sides) == n {
		return engine.Options{}
	}
	return engine.Options{Players: n}
}

// playerName is how tournament mails name an entrant: the display name,
// else the address's local part; never the address.
func playerName(p archive.TournamentPlayer) string {
	if p.Address.Name != "" {
		return p.Address.Name
	}
	local, _, _ := strings.Cut(p.Address.Addr, "@")
	return local
}

// MaxEntries is the most players who may join a tournament. A tables
// tournament's draw is a search whose cost grows with the square of the
// players and of the seats at a table, and it runs on the mail that opens
// a round: its players times its seats may be at most MaxTablesSeats
// (BenchmarkTablesPairing). MaxPending bounds the entries that wait for
// their confirmation.
const (
	MaxEntries     = 200
	MaxTablesSeats = 192
	MaxPending     = 2 * MaxEntries
)

// maxEntries is the most players who may join t.
func maxEntries(t *archive.Tournament) int {
	if formats[t.Format] == tournament.Tables && t.Seats > 0 {
		return max(t.Seats, MaxTablesSeats/t.Seats)
	}
	return MaxEntries
}

// full refuses an entry to t once as many players joined as may: only
// confirmed entries count, so that forged joins cannot fill it.
func full(t *archive.Tournament) error {
	if n := joined(t); n >= maxEntries(t) {
		return mistake(nil, "", "tournament T%d is full: %d players joined, as many as it may have", t.ID, n)
	}
	return nil
}

// entry adds addr to t (not joined) with a new token, or returns the
// entry it has.
func (s *session) entry(t *archive.Tournament, addr string) (*archive.TournamentPlayer, error) {
	if i := t.Player(addr); i >= 0 {
		return &t.Players[i], nil
	}
	if err := full(t); err != nil {
		return nil, err
	}
	if len(t.Players)-joined(t) >= MaxPending {
		return nil, mistake(nil, "", "tournament T%d has %d entries waiting for their confirmation, as many as it may have: try again later", t.ID, MaxPending)
	}
	tok, err := s.r.newToken()
	if err != nil {
		return nil, err
	}
	t.Players = append(t.Players, archive.TournamentPlayer{Address: Address{Addr: addr}, Token: tok, Digest: archive.DigestEach})
	return &t.Players[len(t.Players)-1], nil
}

// joinCmd: join T. A From can be forged, so joining takes two mails: the
// first mails a token to the address; a reply that carries it (join T
// again) enters the player. An invitation is the first mail.
func (s *session) joinCmd(c *cmd) error {
	const form = "join T, e.g. join T1"
	f := strings.Fields(c.rest)
	if len(f) > 1 {
		return mistake(nil, form, "join needs one tournament")
	}
	t, _, err := s.tournamentArg(f, form)
	if err != nil {
		return err
	}
	if t.Status != archive.Entering {
		return mistake(nil, "tournament standings T"+strconv.FormatInt(t.ID, 10), "tournament T%d has started: it takes no more players", t.ID)
	}
	i := t.Player(s.from.Addr)
	switch {
	case i >= 0 && t.Players[i].Joined:
		s.tourReply(t, "join", fmt.Sprintf("You have joined tournament T%d, %s, already.", t.ID, t.Name))
		return nil
	case i >= 0 && s.isEntrant(t, false):
		if err := full(t); err != nil {
			return err
		}
		// The address answered: it may be invited again (see
		// tournamentInvite).
		rec, err := s.window(invitedKey(s.from.Addr))
		if err != nil {
			return err
		}
		rec.Count = 0
		p := &t.Players[i]
		p.Joined = true
		p.Address.Name = s.from.Name
		s.touchTournament(t)
		if err := s.register(s.from); err != nil {
			return err
		}
		n := joined(t)
		s.tourReply(t, "joined", fmt.Sprintf("You joined tournament T%d, %s: %s. %s joined so far; the director starts the first round, and then your games come by mail. \"digest daily\" in a reply to this mail sends you the standings once a day instead of after each result.",
			t.ID, t.Name, settings(t), english.Plural(n, "player")))
		if s.from.Addr != normAddr(t.Director.Addr) {
			s.tour.mails = append(s.tour.mails, s.tourMail(t, t.Director, "joined "+s.from.Addr, "entries",
				fmt.Sprintf("%s joined tournament T%d, %s: %s so far.", inviter(s.from), t.ID, t.Name, english.Plural(n, "player"))))
		}
		return nil
	}
	p, err := s.entry(t, s.from.Addr)
	if err != nil {
		return err
	}
	s.touchTournament(t)
	s.tour.mails = append(s.tour.mails, s.tourMail(t, Address{Addr: p.Address.Addr}, "join token", "join",
		fmt.Sprintf("A request from this address asks to join tournament T%d, %s: %s. To confirm, reply \"join T%d\" to this mail (its subject carries your token). If you did not ask for this, ignore this mail: nothing more of the tournament will come.",
			t.ID, t.Name, settings(t), t.ID)))
	return nil
}

func joined(t *archive.Tournament) int {
	n := 0
	for _, p := range t.Players {
		if p.Joined {
			n++
		}
	}
	return n
}

// director checks that the sender directs t with its token.
func (s *session) director(t *archive.Tournament, what string) error {
	if !s.isDirector(t) {
		return directorNeeded(t, what)
	}
	if t.Status == archive.Proposed {
		return mistake(nil, fmt.Sprintf("tournament confirm T%d, then %s", t.ID, what), "tournament T%d is not confirmed yet", t.ID)
	}
	if s.from.Name != "" {
		t.Director.Name = s.from.Name
	}
	return nil
}

func directorNeeded(t *archive.Tournament, what string) error {
	return mistake(nil, fmt.Sprintf("%s in a reply to a mail of tournament T%d to its director (its subject carries [pbem T%d TOKEN])", what, t.ID, t.ID),
		"%s needs the director's token of tournament T%d", what, t.ID)
}

// tournamentInvite: the director invites addresses; each must accept.
func (s *session) tournamentInvite(t *archive.Tournament, addrs []string) error {
	if err := s.director(t, "tournament invite"); err != nil {
		return err
	}
	if t.Status != archive.Entering {
		return mistake(nil, "", "tournament T%d has started: it takes no more players", t.ID)
	}
	if len(addrs) == 0 {
		return mistake(nil, "tournament invite T ADDRESS ...", "name the addresses to invite")
	}
	var list []string
	for _, a := range addrs {
		addr := normAddr(a)
		switch {
		case !validAddr(addr):
			return mistake(nil, "tournament invite T ADDRESS ...", "%q is not a mail address", a)
		case s.r.ownAddress(addr):
			return mistake(nil, "tournament invite T ADDRESS ...", "the referee does not play")
		}
		if !slices.Contains(list, addr) {
			list = append(list, addr)
		}
	}
	// Invitations go to addresses that never asked for them: a message,
	// a director within an hour, and an address that does not answer
	// each get only so many.
	o := s.r.opts
	win, err := s.window("invitations:" + normAddr(t.Director.Addr))
	if err != nil {
		return err
	}
	if win.WindowStart.IsZero() || s.now.Sub(win.WindowStart) >= o.RateWindow || s.now.Before(win.WindowStart) {
		win.WindowStart, win.Count, win.Warned = s.now, 0, false
	}
	var invited, already, quiet, left []string
	var limit string
	for _, addr := range list {
		if i := t.Player(addr); i >= 0 && t.Players[i].Joined {
			already = append(already, addr)
			continue
		}
		rec, err := s.window(invitedKey(addr))
		if err != nil {
			return err
		}
		if rec.Count > 0 && s.now.Sub(rec.WindowStart) < o.InviteQuiet && !s.now.Before(rec.WindowStart) {
			quiet = append(quiet, fmt.Sprintf("%s (invited on %s)", addr, rec.WindowStart.Format("2006-01-02")))
			continue
		}
		if limit == "" {
			switch {
			case s.tour.invites >= o.InvitesPerMessage:
				limit = fmt.Sprintf("one message invites at most %s; invite them in another message", english.Plural(o.InvitesPerMessage, "address"))
			case win.Count >= o.InvitesPerWindow:
				limit = fmt.Sprintf("a director invites at most %s within %s; invite them after %s",
					english.Plural(o.InvitesPerWindow, "address"), duration(o.RateWindow), stamp(win.WindowStart.Add(o.RateWindow)))
			case full(t) != nil || len(t.Players)-joined(t) >= MaxPending && t.Player(addr) < 0:
				limit = fmt.Sprintf("tournament T%d takes no more entries now", t.ID)
			}
		}
		if limit != "" {
			left = append(left, addr)
			continue
		}
		p, err := s.entry(t, addr)
		if err != nil {
			return err
		}
		s.tour.invites++
		win.Count++
		rec.WindowStart, rec.Count = s.now, rec.Count+1
		invited = append(invited, addr)
		s.tour.mails = append(s.tour.mails, s.tourMail(t, Address{Addr: p.Address.Addr}, "invitation", "invitation",
			fmt.Sprintf("%s invites you to tournament T%d, %s: %s. To enter, reply \"join T%d\" to this mail (its subject carries your token); to refuse, ignore it: you will not be invited again for %s.",
				inviter(t.Director), t.ID, t.Name, settings(t), t.ID, duration(o.InviteQuiet))))
	}
	s.touchTournament(t)
	text := fmt.Sprintf("You invited %s to tournament T%d.", joinAnd(invited), t.ID)
	if len(invited) == 0 {
		text = "Nobody new was invited."
	}
	if len(already) > 0 {
		text += fmt.Sprintf(" %s joined already.", joinAnd(already))
	}
	paras := []string{text}
	if len(quiet) > 0 {
		paras = append(paras, fmt.Sprintf("Not invited again: %s. An address invited to a tournament that has not joined one since is invited again only after %s.",
			joinAnd(quiet), duration(o.InviteQuiet)))
	}
	if len(left) > 0 {
		paras = append(paras, fmt.Sprintf("Not invited: %s. %s.", joinAnd(left), upperFirst(limit)))
	}
	s.tourReply(t, "invitations", paras...)
	return nil
}

// invitedKey is the key of the record of the last tournament invitation
// to addr that it has not answered by joining (see tournamentInvite).
func invitedKey(addr string) string { return "invited:" + normAddr(addr) }

// tournamentStart: the director starts the first round with the players
// who have joined; the others' entries lapse.
func (s *session) tournamentStart(t *archive.Tournament, rest []string) error {
	if len(rest) > 0 {
		return mistake(nil, "tournament start T", "unexpected %q", strings.Join(rest, " "))
	}
	if err := s.director(t, "tournament start"); err != nil {
		return err
	}
	if t.Status != archive.Entering {
		return mistake(nil, "tournament standings T"+strconv.FormatInt(t.ID, 10), "tournament T%d has started already", t.ID)
	}
	var in []archive.TournamentPlayer
	for _, p := range t.Players {
		if p.Joined {
			in = append(in, p)
		}
	}
	least := max(2, t.Seats)
	if most := maxEntries(t); len(in) > most {
		return mistake(nil, "", "tournament T%d has %d players, more than the %d it may have: some must withdraw first", t.ID, len(in), most)
	}
	if len(in) < least {
		return mistake(nil, fmt.Sprintf("tournament start T%d once %d players have joined", t.ID, least), "only %s joined tournament T%d", english.Plural(len(in), "player"), t.ID)
	}
	old := t.Players
	t.Players = in
	ev := event(t)
	if err := ev.Check(); err != nil {
		t.Players = old
		return mistake(nil, "", "tournament T%d cannot start: %s", t.ID, strings.TrimPrefix(err.Error(), "tournament: "))
	}
	t.Status = archive.Running
	s.touchTournament(t)
	var names []string
	for _, p := range t.Players {
		names = append(names, fmt.Sprintf("%s <%s>", playerName(p), p.Address.Addr))
	}
	s.tourReply(t, "started", fmt.Sprintf("Tournament T%d, %s, starts with %s: %s.", t.ID, t.Name, english.Plural(len(in), "player"), joinAnd(names)))
	return s.advance(t)
}

// tournamentRound: the director sets the date a round opens, whatever is
// still being played then (round robins and tables: a Swiss round is
// paired on the scores, so it waits for every game before it).
func (s *session) tournamentRound(t *archive.Tournament, rest []string) error {
	form := fmt.Sprintf("tournament round T%d N DATE, with DATE as 2026-12-01 or 2026-12-01T18:00 (UTC)", t.ID)
	if err := s.director(t, "tournament round"); err != nil {
		return err
	}
	if len(rest) != 2 {
		return mistake(nil, form, "tournament round needs a round and a date")
	}
	switch {
	case t.Status == archive.Finished:
		return mistake(nil, "", "tournament T%d is over", t.ID)
	case formats[t.Format] == tournament.Swiss:
		return mistake(nil, "", "a Swiss round is paired on the scores: it opens when every game before it has ended, and takes no date")
	}
	ev := event(t)
	n, err := strconv.Atoi(rest[0])
	if err != nil || n <= ev.Paired() || n < 2 || t.Status == archive.Running && n > ev.TotalRounds() {
		return mistake(nil, form, "%q is not a round still to be paired (round 1 opens at the start; %d paired so far)", rest[0], ev.Paired())
	}
	var at time.Time
	for _, layout := range []string{"2006-01-02", "2006-01-02T15:04", time.RFC3339} {
		if at, err = time.Parse(layout, rest[1]); err == nil {
			break
		}
	}
	if err != nil {
		return mistake(nil, form, "%q is not a date", rest[1])
	}
	at = at.UTC()
	if !at.After(s.now) {
		return mistake(nil, form, "%s has passed", stamp(at))
	}
	if t.Opens == nil {
		t.Opens = map[int]time.Time{}
	}
	t.Opens[n] = at
	s.touchTournament(t)
	s.tourReply(t, fmt.Sprintf("round %d", n), fmt.Sprintf("Round %d of tournament T%d opens on %s, or earlier when every game of round %d has ended.", n, t.ID, stamp(at), n-1))
	return nil
}

// TournamentEvent is the core's view of a stored tournament, as the
// referee pairs it and computes the standings it mails (the web pages show
// the same).
func TournamentEvent(t *archive.Tournament) *tournament.Event { return event(t) }

// event is the core's view of a stored tournament.
func event(t *archive.Tournament) *tournament.Event {
	e := &tournament.Event{Name: t.Name, Format: formats[t.Format], Rounds: t.Rounds, Seed: uint64(t.Seed),
		Accelerated: t.Accelerated}
	if e.Format == tournament.Tables {
		e.TableSizes = []int{t.Seats}
	}
	// A round robin of an odd number gives every player one bye: scoring
	// it would change no order, and unscored the standings are exactly
	// the archive's crosstable (which sees games only).
	e.UnscoredByes = e.Format == tournament.RoundRobin || e.Format == tournament.DoubleRoundRobin
	for _, p := range t.Players {
		e.Players = append(e.Players, tournament.Player{ID: normAddr(p.Address.Addr), Name: playerName(p)})
		if p.Withdrawn {
			e.Withdrawn = append(e.Withdrawn, normAddr(p.Address.Addr))
		}
	}
	for _, g := range t.Games {
		e.Games = append(e.Games, tournament.Game{ID: strconv.FormatInt(g.GameID, 10), Round: g.Round, Board: g.Board,
			Players: slices.Clone(g.Players), Ranks: slices.Clone(g.Ranks), Forfeit: g.Forfeit})
	}
	for _, b := range t.Byes {
		e.Byes = append(e.Byes, tournament.Bye{Round: b.Round, Player: b.Player, Kind: byeKinds[b.Kind]})
	}
	return e
}

// byeKinds maps the stored kinds of bye to the core's.
var byeKinds = map[string]tournament.ByeKind{
	"":              tournament.PairingBye,
	archive.ByeHalf: tournament.HalfPoint,
	archive.ByeZero: tournament.ZeroPoint,
}

// advance opens every round that may open: pairs it, creates and starts
// its games, and records it; after the last round the tournament is over.
func (s *session) advance(t *archive.Tournament) error {
	for t.Status == archive.Running {
		ev := event(t)
		next := ev.Paired() + 1
		if next <= ev.TotalRounds() && !ev.Opens(next, t.Opens[next], s.now) {
			return nil
		}
		b := s.touchTournament(t)
		delete(t.Opens, next)
		if next > ev.TotalRounds() {
			if len(ev.Pending()) > 0 {
				return nil
			}
			t.Status, t.DigestDue = archive.Finished, zeroTime
			b.done = true
			return nil
		}
		rd, err := ev.Pair()
		if err != nil {
			// No valid pairing (withdrawals left too few players): the
			// event ends with the rounds played.
			t.Status, t.DigestDue = archive.Finished, zeroTime
			b.notes = append(b.notes, fmt.Sprintf("Round %d cannot be paired (%s): the tournament ends after round %d.",
				next, strings.TrimPrefix(err.Error(), "tournament: "), next-1))
			b.done = true
			return nil
		}
		for _, g := range rd.Games {
			ng, err := s.tournamentGame(t, g)
			if err != nil {
				return err
			}
			t.Games = append(t.Games, archive.TournamentGame{Round: g.Round, Board: g.Board, GameID: ng.ID, Players: g.Players})
		}
		for _, g := range rd.Forfeited {
			tg := archive.TournamentGame{Round: g.Round, Board: g.Board, Players: g.Players, Ranks: g.Ranks, Forfeit: true}
			t.Games = append(t.Games, tg)
			b.results = append(b.results, resultLine(t, tg))
		}
		for _, id := range rd.Byes {
			t.Byes = append(t.Byes, archive.TournamentBye{Round: rd.Number, Player: id})
		}
		b.opened = append(b.opened, rd.Number)
	}
	return nil
}

// tournamentGame creates and starts the game of a pairing: its players
// confirmed by joining the tournament, every seat joined at once.
func (s *session) tournamentGame(t *archive.Tournament, tg tournament.Game) (*game, error) {
	codec, err := s.r.opts.Lookup(t.Game)
	if err != nil {
		return nil, fmt.Errorf("tournament %d: %w", t.ID, err)
	}
	rules := codec.Rules()
	eo := tableOptions(rules, len(tg.Players))
	sides, err := rules.Sides(eo)
	if err != nil {
		return nil, fmt.Errorf("tournament %d: %s for %d: %w", t.ID, rules.ID(), len(tg.Players), err)
	}
	id, err := s.store.NewGameID(s.ctx)
	if err != nil {
		return nil, err
	}
	o := archive.GameOptions{Players: eo.Players, Days: t.Days, Control: t.Control, Rated: t.Rated, Event: t.Name, Round: strconv.Itoa(tg.Round),
		Position: t.Position}
	ag := &archive.Game{ID: id, Game: rules.ID(), Status: archive.Invited, Options: o,
		TurnStart: s.now, Thread: s.threadID(id), Created: s.now}
	for i, addr := range tg.Players {
		tok, err := s.r.newToken()
		if err != nil {
			return nil, err
		}
		p := t.Players[t.Player(addr)]
		ag.Seats = append(ag.Seats, archive.Seat{Side: sides[i], Player: Address{Name: playerName(p), Addr: normAddr(addr)}, Token: tok, Joined: true})
	}
	g := &game{Game: ag, codec: codec, sides: sides, opts: eo}
	s.games[id] = g
	s.touch(g)
	if err := s.start(g); err != nil {
		return nil, err
	}
	for i := range g.Seats {
		d := &draft{to: g.Seats[i].Player, game: g, seat: i, kind: "tournament game"}
		d.add("Tournament T%d, %s, round %d, board %d: game #%d starts: %s.", t.ID, t.Name, tg.Round, tg.Board, g.ID, g.seating())
		d.show(g)
		s.tour.mails = append(s.tour.mails, s.compose(d))
	}
	return g, nil
}

// tournamentResults records in their tournaments the results of the games
// this session ended, and opens the rounds that may open.
func (s *session) tournamentResults() error {
	ts := s.tstore()
	for _, e := range s.entries {
		if e.GameID == 0 {
			continue
		}
		t := s.tournamentWithGame(e.GameID)
		if t == nil {
			st, err := ts.TournamentOfGame(s.ctx, e.GameID)
			if errors.Is(err, archive.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if cached, ok := s.tour.byID[st.ID]; ok {
				st = cached
			}
			s.keepTournament(st)
			t = st
		}
		g := s.games[e.GameID]
		i := slices.IndexFunc(t.Games, func(x archive.TournamentGame) bool { return x.GameID == e.GameID })
		if g == nil || i < 0 || t.Games[i].Ranks != nil {
			continue // recorded already (a forfeit)
		}
		ranks, err := notation.ParseResult(g.codec, g.sides, g.result)
		if err != nil || ranks == nil {
			panic(fmt.Sprintf("game %d: result %q of tournament %d: %v", g.ID, g.result, t.ID, err))
		}
		t.Games[i].Ranks = ranks
		b := s.touchTournament(t)
		b.results = append(b.results, resultLine(t, t.Games[i]))
	}
	for _, t := range s.tour.changed {
		if err := s.advance(t); err != nil {
			return err
		}
	}
	return nil
}

// tournamentWithGame is the session's tournament holding a game, or nil.
func (s *session) tournamentWithGame(id int64) *archive.Tournament {
	for _, t := range s.tour.byID {
		if slices.ContainsFunc(t.Games, func(x archive.TournamentGame) bool { return x.GameID == id }) {
			return t
		}
	}
	return nil
}

// resultLine is "Round 2, board 1 (game #7): Ann - Bob  1-0".
func resultLine(t *archive.Tournament, g archive.TournamentGame) string {
	e := event(t)
	e.Games = []tournament.Game{{Round: g.Round, Board: g.Board, Players: g.Players, Ranks: g.Ranks, Forfeit: g.Forfeit}}
	e.Byes = nil
	var b strings.Builder
	e.WritePairings(&b, g.Round)
	_, line, _ := strings.Cut(strings.TrimRight(b.String(), "\n"), "\n\n")
	_, line, _ = strings.Cut(line, ". ")
	where := fmt.Sprintf("Round %d, board %d", g.Round, g.Board)
	if g.GameID > 0 {
		where += fmt.Sprintf(" (game #%d)", g.GameID)
	}
	return where + ": " + line
}

// tournamentStandings: the standings so far, to anyone (names only).
func (s *session) tournamentStandings(t *archive.Tournament) error {
	if t.Status == archive.Entering {
		var names []string
		for _, p := range t.Players {
			if p.Joined {
				names = append(names, playerName(p))
			}
		}
		text := fmt.Sprintf("Tournament T%d, %s (%s), has not started; %s joined: %s.", t.ID, t.Name, settings(t), english.Plural(len(names), "player"), joinAnd(names))
		s.tourReply(t, "standings", text)
		return nil
	}
	text, err := standingsText(t)
	if err != nil {
		return err
	}
	s.tourReply(t, "standings", preformatted+text, byesNote(t))
	return nil
}

// standingsText is the standings table of t. A tournament whose
// standings cannot be computed fails so again: its error is the
// message's own (broken), answered once, never retried.
func standingsText(t *archive.Tournament) (string, error) {
	st, err := event(t).Standings()
	if err != nil {
		return "", broken(fmt.Errorf("tournament %d: standings: %w", t.ID, err))
	}
	var b strings.Builder
	st.WriteText(&b)
	return strings.TrimRight(b.String(), "\n"), nil
}

// byesNote says how the standings count byes, withdrawals and ties.
func byesNote(t *archive.Tournament) string {
	switch formats[t.Format] {
	case tournament.RoundRobin, tournament.DoubleRoundRobin:
		return "Ties are broken by Sonneborn-Berger (SB). A bye scores nothing: in a round robin of an odd number every player sits out once. A game forfeited by a withdrawal scores like a loss for the player who withdrew and adds nothing to SB."
	case tournament.Swiss:
		note := "Ties are broken by Buchholz (Buch: the opponents' scores) and median Buchholz (Med: without the highest and lowest). A bye scores 1 point and, like a game forfeited by a withdrawal, counts in Buchholz as an opponent with the player's own score; the archive's crosstable counts games only."
		if slices.ContainsFunc(t.Byes, func(b archive.TournamentBye) bool { return b.Kind != "" }) {
			note += " A half-point bye asked for scores 1/2, an absence 0, from the pairing of its round; Byes counts them too, and each counts in Buchholz as the bye does."
		}
		return note
	}
	return fmt.Sprintf("A table scores %d points to the winner, one less per place (seats minus rank, pair by pair); ties are broken by Sonneborn-Berger (SB). A bye scores a table's average (%s), which the archive's crosstable, counting games only, does not show.",
		t.Seats-1, points(t.Seats-1))
}

// points writes half points: "1 point", "1.5 points".
func points(half int) string {
	if half == 2 {
		return "1 point"
	}
	return strconv.FormatFloat(float64(half)/2, 'f', -1, 64) + " points"
}

// tournamentPairings: the pairings of a round (default: the last paired).
func (s *session) tournamentPairings(t *archive.Tournament, rest []string) error {
	ev := event(t)
	r := ev.Paired()
	if len(rest) > 1 {
		return mistake(nil, "tournament pairings T [ROUND]", "unexpected %q", strings.Join(rest, " "))
	}
	if len(rest) == 1 {
		n, err := strconv.Atoi(rest[0])
		if err != nil || n < 1 || n > r {
			return mistake(nil, fmt.Sprintf("tournament pairings T%d ROUND with ROUND from 1 to %d", t.ID, r), "%q is not a round paired so far", rest[0])
		}
		r = n
	}
	if r == 0 {
		return mistake(nil, "", "tournament T%d has no round paired yet", t.ID)
	}
	var b strings.Builder
	ev.WritePairings(&b, r)
	s.tourReply(t, fmt.Sprintf("round %d", r), preformatted+strings.TrimRight(b.String(), "\n"))
	return nil
}

// tournamentWithdraw: a player leaves; their pending games are forfeited
// (and the referee's games ended so), and they are paired no more.
func (s *session) tournamentWithdraw(t *archive.Tournament, rest []string) error {
	if len(rest) > 0 {
		return mistake(nil, "tournament withdraw T", "unexpected %q", strings.Join(rest, " "))
	}
	i := t.Player(s.from.Addr)
	if i < 0 || !t.Players[i].Joined || !s.isEntrant(t, true) {
		return mistake(nil, fmt.Sprintf("tournament withdraw T%d in a reply to a mail of the tournament (its subject carries [pbem T%d TOKEN])", t.ID, t.ID),
			"tournament withdraw needs your token of tournament T%d, in which you play", t.ID)
	}
	p := &t.Players[i]
	switch {
	case p.Withdrawn:
		return mistake(nil, "", "you have withdrawn from tournament T%d already", t.ID)
	case t.Status == archive.Finished:
		return mistake(nil, "", "tournament T%d is over", t.ID)
	}
	// The byes asked for rounds not yet paired go with the player.
	paired := event(t).Paired()
	t.Byes = slices.DeleteFunc(t.Byes, func(b archive.TournamentBye) bool {
		return b.Kind != "" && b.Round > paired && normAddr(b.Player) == normAddr(p.Address.Addr)
	})
	if t.Status == archive.Entering {
		t.Players = slices.Delete(t.Players, i, i+1)
		s.touchTournament(t)
		s.tourReply(t, "withdrawn", fmt.Sprintf("You withdrew from tournament T%d, %s, before it started.", t.ID, t.Name))
		return nil
	}
	addr := normAddr(p.Address.Addr)
	forfeits := event(t).Forfeits(addr)
	p.Withdrawn = true
	b := s.touchTournament(t)
	name := playerName(*p)
	b.notes = append(b.notes, fmt.Sprintf("%s withdrew: their games still under way are forfeited, and they are paired no more.", name))
	for _, f := range forfeits {
		k := slices.IndexFunc(t.Games, func(x archive.TournamentGame) bool {
			return x.Round == f.Round && x.Board == f.Board && x.Ranks == nil
		})
		tg := &t.Games[k]
		tg.Ranks, tg.Forfeit = f.Ranks, true
		b.results = append(b.results, resultLine(t, *tg))
		if tg.GameID == 0 {
			continue
		}
		g, err := s.game(tg.GameID)
		if err != nil {
			return err
		}
		if g.Status != archive.Playing {
			continue
		}
		seat := g.seatOf(addr)
		why := fmt.Sprintf("%s withdrew from %s", g.who(seat), t.Name)
		s.tell(g, true, "%s: the game is forfeited.", why)
		s.finish(g, engine.Outcome{Over: true, Rank: slices.Clone(f.Ranks), Reason: why}, "forfeit", why)
	}
	s.tourReply(t, "withdrawn", fmt.Sprintf("You withdrew from tournament T%d, %s: %s forfeited.", t.ID, t.Name, english.Plural(len(forfeits), "game")))
	return s.advance(t)
}

// digestCmd: digest daily|each [T] sets how a player gets the standings.
func (s *session) digestCmd(c *cmd) error {
	const form = "digest daily or digest each, in a reply to a mail of your tournament"
	f := strings.Fields(strings.ToLower(c.rest))
	if len(f) == 0 || f[0] != archive.DigestDaily && f[0] != archive.DigestEach {
		return mistake(nil, form, "digest needs daily or each")
	}
	t, rest, err := s.tournamentArg(f[1:], form)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return mistake(nil, form, "unexpected %q", strings.Join(rest, " "))
	}
	if !s.isEntrant(t, true) {
		return mistake(nil, fmt.Sprintf("digest in a reply to a mail of tournament T%d (its subject carries [pbem T%d TOKEN])", t.ID, t.ID),
			"digest needs your token of tournament T%d, in which you play", t.ID)
	}
	t.Players[t.Player(s.from.Addr)].Digest = f[0]
	s.touchTournament(t)
	text := "You will get the standings of tournament T%d after each result."
	if f[0] == archive.DigestDaily {
		text = "You will get the standings of tournament T%d once a day, when there were results (the pairings of each round still come when it opens)."
	}
	s.tourReply(t, "digest", fmt.Sprintf(text, t.ID))
	return nil
}

// tourReply answers the sender about t (with the sender's token of t in
// the subject, when they have one).
func (s *session) tourReply(t *archive.Tournament, label string, paras ...string) {
	m := s.tourMail(t, s.from, "reply", label, paras...)
	if id := trimID(s.req.MessageID); id != "" {
		m.InReplyTo = id
		m.References = append(m.References, id)
	}
	s.tour.mails = append(s.tour.mails, m)
}

// tourMail writes a mail about tournament t to one address: the subject
// carries the tournament's tag with the recipient's token (the director's
// to the director, a player's to a player), and the mail is in the
// tournament's thread. Paragraphs are wrapped, but those marked
// preformatted. Tournament mails name players, never their addresses, but
// to the director.
func (s *session) tourMail(t *archive.Tournament, to Address, kind, label string, paras ...string) *archive.Outgoing {
	r := s.r
	addr := normAddr(to.Addr)
	token := ""
	if i := t.Player(addr); i >= 0 {
		token = t.Players[i].Token
	}
	if addr == normAddr(t.Director.Addr) {
		token = t.DirectorToken
	}
	tag := fmt.Sprintf("[pbem T%d]", t.ID)
	if token != "" {
		tag = fmt.Sprintf("[pbem T%d %s]", t.ID, token)
	}
	subject := fmt.Sprintf("%s %s: %s", tag, t.Name, label)
	if t.Status == archive.Proposed {
		// No text of an unconfirmed request: not its name, not the
		// sender's display name.
		subject = fmt.Sprintf("%s tournament: %s", tag, label)
		to.Name = ""
	}
	thread := fmt.Sprintf("pbem.t%d.tournament@%s", t.ID, r.domain)
	o := &archive.Outgoing{Mail: archive.Mail{
		From:          r.Address(),
		To:            []Address{{Name: to.Name, Addr: addr}},
		Subject:       subject,
		Date:          s.now,
		MessageID:     s.uniqueID(fmt.Sprintf("pbem.t%d", t.ID), s.key, "tournament "+kind, addr, strconv.FormatInt(t.ID, 10)),
		InReplyTo:     thread,
		References:    []string{thread},
		AutoSubmitted: archive.AutoReplied,
	}}
	if s.req == nil {
		o.AutoSubmitted = archive.AutoGenerated
	}
	var body strings.Builder
	body.WriteString(paragraphs(paras))
	body.WriteString("\n\n-- \n")
	if token != "" {
		body.WriteString(wrap(fmt.Sprintf("pbem referee. Reply to this mail with commands for tournament T%d, one per line. The subject carries your token for the tournament: keep it to yourself.", t.ID)))
	} else {
		body.WriteString(wrap("pbem referee. Send \"help\" for the commands."))
	}
	o.Text = body.String()
	if kind == "digest" && label == "daily standings" {
		// the daily standings, mail the player may stop (RFC 8058)
		o.Unsubscribe = r.unsubscribeHeader(addr, archive.UnsubTournament)
	}
	s.addHTML(o, &draft{to: to})
	return o
}

// flushTournaments writes the mails of what happened in each tournament
// (one per recipient) and adds the tournaments and all their mails to ch.
func (s *session) flushTournaments(ch *archive.Change) {
	for _, t := range s.tour.changed {
		b := s.tour.news[t.ID]
		if b != nil && (len(b.notes) > 0 || len(b.results) > 0 || len(b.opened) > 0 || b.done) {
			s.bulletinMails(t, b)
		}
		ch.Tournaments = append(ch.Tournaments, t)
	}
	ch.Outbox = append(ch.Outbox, s.tour.mails...)
}

// bulletinMails tells the players (and the director) what happened in t:
// results with the standings to those who want them after each result
// (the others' daily digest falls due), the pairings of new rounds to
// everyone, the final standings to everyone.
func (s *session) bulletinMails(t *archive.Tournament, b *bulletin) {
	standings, err := standingsText(t)
	if err != nil {
		panic(fmt.Sprintf("tournament %d: standings: %v", t.ID, err))
	}
	ev := event(t)
	var pairings []string
	for _, r := range b.opened {
		var w strings.Builder
		ev.WritePairings(&w, r)
		pairings = append(pairings, preformatted+strings.TrimRight(w.String(), "\n"))
	}
	label := "results"
	switch {
	case b.done:
		label = "final standings"
	case len(b.opened) > 0:
		label = fmt.Sprintf("round %d", b.opened[len(b.opened)-1])
	}
	type rcpt struct {
		to     Address
		digest string
	}
	var rcpts []rcpt
	daily := false
	for _, p := range t.Players {
		if p.Joined && (!p.Withdrawn || b.done) {
			rcpts = append(rcpts, rcpt{Address{Name: p.Address.Name, Addr: p.Address.Addr}, p.Digest})
			daily = daily || p.Digest == archive.DigestDaily && len(b.results) > 0 && !b.done
		}
	}
	if t.Player(t.Director.Addr) < 0 {
		rcpts = append(rcpts, rcpt{t.Director, archive.DigestDaily})
	}
	if daily && t.DigestDue.IsZero() {
		t.DigestDue = nextMidnight(s.now)
	}
	for _, rc := range rcpts {
		results := len(b.results) > 0 && (rc.digest == archive.DigestEach || b.done || len(b.opened) > 0)
		if !results && len(b.notes) == 0 && len(b.opened) == 0 && !b.done {
			continue
		}
		var paras []string
		paras = append(paras, b.notes...)
		if len(b.results) > 0 {
			paras = append(paras, "Results:\n"+strings.Join(b.results, "\n"))
		}
		if results || b.done {
			head := "Standings:"
			if b.done {
				head = fmt.Sprintf("Tournament T%d, %s, is over. Final standings:", t.ID, t.Name)
			}
			paras = append(paras, head, preformatted+standings, byesNote(t))
		}
		if len(b.opened) > 0 {
			paras = append(paras, fmt.Sprintf("The pairings (each game's mail, with your token for it, comes separately):"))
			paras = append(paras, pairings...)
		}
		s.tour.mails = append(s.tour.mails, s.tourMail(t, rc.to, "bulletin", label, paras...))
	}
}

// nextMidnight is the first 00:00 UTC after now: when the daily
// standings go.
func nextMidnight(now time.Time) time.Time {
	y, m, d := now.UTC().Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)
}

// tickTournaments sends the daily standings that are due at now and opens
// the rounds whose date has come.
func (r *Referee) tickTournaments(ctx context.Context, now time.Time) error {
	ts := r.store
	due, err := ts.DueTournaments(ctx, now)
	if err != nil {
		return fmt.Errorf("referee: tick: %w", err)
	}
	var errs []error
	for _, t := range due {
		if err := r.tickTournament(ctx, ts, t, now); err != nil {
			errs = append(errs, fmt.Errorf("referee: tick: tournament %d: %w", t.ID, err))
		}
	}
	return errors.Join(errs...)
}

// tickTournament mails the daily standings of t to the players who asked
// for them, when due, and opens the rounds whose date has come, in its
// own commit.
func (r *Referee) tickTournament(ctx context.Context, ts Store, t *archive.Tournament, now time.Time) (err error) {
	defer func() {
		if p := recover(); p != nil {
			r.stats.panics.Add(1)
			r.log.Error("panic in the clock", "tournament", t.ID, "panic", p, "stack", string(debug.Stack()))
			err = fmt.Errorf("internal error: %v", p)
		}
	}()
	for range maxAttempts {
		s := r.newSession(ctx, nil, fmt.Sprintf("tick:t%d:%d", t.ID, t.Version))
		s.now = now.UTC()
		s.keepTournament(t)
		if !t.DigestDue.IsZero() && !t.DigestDue.After(s.now) {
			t.DigestDue = zeroTime
			s.touchTournament(t)
			standings, err := standingsText(t)
			if err != nil {
				return err
			}
			for _, p := range t.Players {
				if p.Joined && !p.Withdrawn && p.Digest == archive.DigestDaily && !s.unsubscribed(p.Address.Addr, archive.UnsubTournament) {
					s.tour.mails = append(s.tour.mails, s.tourMail(t, p.Address, "digest", "daily standings",
						fmt.Sprintf("The standings of tournament T%d, %s, on %s:", t.ID, t.Name, s.now.Format("2006-01-02")),
						preformatted+standings, byesNote(t)))
				}
			}
		}
		if err := s.advance(t); err != nil {
			return err
		}
		if len(s.tour.changed) == 0 {
			return nil // a date for a later round: nothing to do yet
		}
		ch := s.change()
		err = r.store.Commit(ctx, ch)
		if err == nil {
			r.stats.queued.Add(int64(len(ch.Outbox)))
		}
		if !errors.Is(err, archive.ErrConflict) {
			return err
		}
		r.stats.conflicts.Add(1)
		if t, err = ts.Tournament(ctx, t.ID); err != nil {
			return err
		}
	}
	return err
}

// DefaultByes is how many half-point byes a player of a Swiss may ask for
// when the director does not say (byes=N); MaxByes the most a director
// may allow.
const (
	DefaultByes = 1
	MaxByes     = 9
)

// tournamentBye: a player of a Swiss asks to sit out a round not yet
// paired: "tournament bye T ROUND" for half a point (at most the byes=N
// of the tournament), "tournament bye T ROUND zero" for none (as many as
// they like).
func (s *session) tournamentBye(t *archive.Tournament, rest []string) error {
	form := fmt.Sprintf("tournament bye T%d ROUND, or tournament bye T%d ROUND zero, in a reply to a mail of the tournament (its subject carries [pbem T%d TOKEN])", t.ID, t.ID, t.ID)
	if len(rest) < 1 || len(rest) > 2 || len(rest) == 2 && !strings.EqualFold(rest[1], "zero") {
		return mistake(nil, form, "tournament bye needs a round, then zero or nothing")
	}
	i := t.Player(s.from.Addr)
	if i < 0 || !t.Players[i].Joined || !s.isEntrant(t, true) {
		return mistake(nil, form, "tournament bye needs your token of tournament T%d, in which you play", t.ID)
	}
	kind := archive.ByeHalf
	if len(rest) == 2 {
		kind = archive.ByeZero
	}
	round, err := s.byeRound(t, i, rest[0], form)
	if err != nil {
		return err
	}
	addr := normAddr(t.Players[i].Address.Addr)
	if kind == archive.ByeHalf {
		asked := 0
		for _, b := range t.Byes {
			if normAddr(b.Player) == addr && b.Kind == archive.ByeHalf {
				asked++
			}
		}
		if asked >= t.ByesAllowed {
			return mistake(nil, fmt.Sprintf("at most %s a player in tournament T%d; \"tournament bye T%d %d zero\" misses the round for no point", english.Plural(t.ByesAllowed, "half-point bye"), t.ID, t.ID, round),
				"you have asked for %s already", english.Plural(asked, "half-point bye"))
		}
	}
	t.Byes = append(t.Byes, archive.TournamentBye{Round: round, Player: addr, Kind: kind})
	s.touchTournament(t)
	what := "You sit out round %d of tournament T%d, %s, with a half-point bye: not paired, you score 1/2; you are paired again in the round after."
	if kind == archive.ByeZero {
		what = "You miss round %d of tournament T%d, %s: not paired, no point; you are paired again in the round after."
	}
	s.tourReply(t, "bye", fmt.Sprintf(what, round, t.ID, t.Name))
	return nil
}

// tournamentAbsent: the director says a player of a Swiss will miss a
// round not yet paired (no point): "tournament absent T ROUND ADDRESS".
func (s *session) tournamentAbsent(t *archive.Tournament, rest []string) error {
	form := fmt.Sprintf("tournament absent T%d ROUND ADDRESS, from the director of T%d", t.ID, t.ID)
	if len(rest) != 2 {
		return mistake(nil, form, "tournament absent needs a round and a player's address")
	}
	if !s.isDirector(t) {
		return directorNeeded(t, "tournament absent")
	}
	i := t.Player(rest[1])
	if i < 0 || !t.Players[i].Joined {
		return mistake(nil, form, "the address %s does not play in tournament T%d", rest[1], t.ID)
	}
	round, err := s.byeRound(t, i, rest[0], form)
	if err != nil {
		return err
	}
	p := t.Players[i]
	t.Byes = append(t.Byes, archive.TournamentBye{Round: round, Player: normAddr(p.Address.Addr), Kind: archive.ByeZero})
	s.touchTournament(t)
	s.tourReply(t, "absent", fmt.Sprintf("%s will miss round %d of tournament T%d, %s: not paired, no point.", playerName(p), round, t.ID, t.Name))
	if normAddr(p.Address.Addr) != s.from.Addr {
		s.tour.mails = append(s.tour.mails, s.tourMail(t, p.Address, fmt.Sprintf("absent %d", round), "absent",
			fmt.Sprintf("The director marks you absent from round %d of tournament T%d, %s: not paired, no point; you are paired again in the round after.", round, t.ID, t.Name)))
	}
	return nil
}

// byeRound reads the round of a bye for player i of t: a Swiss still to
// be played, the player still in it, a round not yet paired, and no bye
// in it already.
func (s *session) byeRound(t *archive.Tournament, i int, arg, form string) (int, error) {
	if formats[t.Format] != tournament.Swiss {
		return 0, mistake(nil, "", "tournament T%d is a %s: only a Swiss tournament takes byes asked for", t.ID, formats[t.Format])
	}
	switch {
	case t.Status == archive.Finished:
		return 0, mistake(nil, "", "tournament T%d is over", t.ID)
	case t.Players[i].Withdrawn:
		return 0, mistake(nil, "", "%s has withdrawn from tournament T%d", playerName(t.Players[i]), t.ID)
	}
	paired := event(t).Paired()
	round, err := strconv.Atoi(arg)
	if err != nil || round < 1 || round > t.Rounds {
		return 0, mistake(nil, form, "%q is not a round of tournament T%d: want 1 to %d", arg, t.ID, t.Rounds)
	}
	if round <= paired {
		return 0, mistake(nil, fmt.Sprintf("a round from %d to %d", paired+1, t.Rounds),
			"round %d of tournament T%d is paired already", round, t.ID)
	}
	addr := normAddr(t.Players[i].Address.Addr)
	away := map[string]bool{}
	for _, b := range t.Byes {
		if b.Round == round && normAddr(b.Player) == addr {
			return 0, mistake(nil, "", "%s already sits out round %d of tournament T%d", playerName(t.Players[i]), round, t.ID)
		}
		if b.Round == round {
			away[normAddr(b.Player)] = true
		}
	}
	left := 0
	for _, p := range t.Players {
		if p.Joined && !p.Withdrawn && !away[normAddr(p.Address.Addr)] {
			left++
		}
	}
	if left-1 < 2 && t.Status == archive.Running {
		return 0, mistake(nil, "", "round %d of tournament T%d would have %s to pair: at least two must play it", round, t.ID, english.Plural(left-1, "player"))
	}
	return round, nil
}
