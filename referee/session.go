package referee

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"pbem/archive"
	"pbem/engine"
	"pbem/internal/english"
	"pbem/notation"
)

// session is the work of one request (or one clock event): the games it
// read and changed, and the mails it writes.
type session struct {
	r     *Referee
	store Store // r.store, or the view of a batch (batch.go)
	ctx   context.Context
	req   *Request // nil for a clock event
	key   string
	now   time.Time

	from    Address // the sender, address lower-cased; zero for a clock event
	creds   []cred
	context int64 // the game the subject tag or plus-address names

	games         map[int64]*game
	changed       []*game // games to store, in the order first changed
	players       map[string]*archive.Player
	playerChanged []*archive.Player
	senders       []*archive.Sender
	entries       []*archive.Entry
	notes         []*archive.Note     // the players' new private notes (notes.go)
	analyses      []*archive.Analysis // analyses asked for (analyse.go)
	// unsubscribe and resubscribe stop and restart kinds of mail for
	// addresses (unsubscribe.go)
	unsubscribe, resubscribe []archive.Unsubscription
	addressChange            *archive.AddressChange // address.go
	verb                     string                 // the command being handled, for refusals

	mine *draft // the reply to the sender; the others are written from the games' news
	// extra are mails to others than the games' seats and watchers (a
	// player whose seat the computer took over).
	extra []*draft
	tour  tourState       // the tournaments read and changed (tournament.go)
	ids   map[string]bool // the Message-IDs given so far (uniqueID)
	// bot is set when the referee plays a bot's ply (PlayBot): the sender
	// is the bot's seat, which has no token and gets no mail.
	bot bool
	// refused is the first mistake answered (for a Direct answer).
	refused *userError
}

// draft is one mail being written.
type draft struct {
	to    Address
	game  *game // the game the mail is about (subject, thread), or nil
	seat  int   // the recipient's seat in game, -1 for none
	kind  string
	paras []string
	// blocks are the games whose state ends the mail (the sender's reply
	// may show several).
	blocks []*game
	label  string // subject of a mail about no game
}

func (d *draft) add(format string, args ...any) {
	if len(args) > 0 {
		format = fmt.Sprintf(format, args...)
	}
	d.paras = append(d.paras, format)
}

// preformatted marks a paragraph written as is, never rewrapped (a game
// record, whose lines the record writer already keeps to 79 columns and
// whose tags must stay on one line).
const preformatted = "\x01"

// prose is the draft's paragraphs as text (paragraphs).
func (d *draft) prose() string { return paragraphs(d.paras) }

// paragraphs writes paras as text: each wrapped, a preformatted one as
// written, a blank line between them.
func paragraphs(paras []string) string {
	var b strings.Builder
	for i, p := range paras {
		if i > 0 {
			b.WriteString("\n\n")
		}
		if raw, ok := strings.CutPrefix(p, preformatted); ok {
			b.WriteString(raw)
		} else {
			b.WriteString(wrap(p))
		}
	}
	return b.String()
}

// addPre adds a paragraph that is written exactly as given.
func (d *draft) addPre(text string) { d.paras = append(d.paras, preformatted+text) }

func (d *draft) show(g *game) {
	if g != nil && !slices.Contains(d.blocks, g) {
		d.blocks = append(d.blocks, g)
	}
}

func (r *Referee) newSession(ctx context.Context, req *Request, key string) *session {
	s := &session{r: r, store: r.store, ctx: ctx, req: req, key: key, now: r.now(req),
		games: map[int64]*game{}, players: map[string]*archive.Player{}}
	if req != nil {
		s.from = Address{Name: cleanName(req.From.Name), Addr: normAddr(req.From.Addr)}
		s.mine = &draft{to: s.from, seat: -1, kind: "reply"}
	}
	return s
}

// userError is a player's mistake: it is answered with the line, the
// reason, what was expected and the board.
type userError struct {
	reason   string
	expected string
	game     *game
	board    string // a board other than the game's current one (preview)
	help     bool   // add the short help
	next     int    // the ply expected, when a ply was refused as stale
}

func (e *userError) Error() string { return e.reason }

func mistake(g *game, expected, format string, args ...any) *userError {
	return &userError{reason: fmt.Sprintf(format, args...), expected: expected, game: g}
}

// MaxCommands is the most command lines read from one message.
const MaxCommands = 30

// MaxLineBytes is the longest command line read: a longer line is refused
// before it is decoded, so that one message cannot cost much work.
const MaxLineBytes = 1000

// run processes the request.
func (s *session) run() error {
	q := s.req
	if why := s.r.automatic(q); why != "" {
		s.r.stats.ignored.Add(1)
		if s.r.unverified(q) {
			s.r.stats.unverified.Add(1)
		}
		s.r.log.Info("not answered", "message", s.key, "from", q.From.Addr, "reason", why)
		s.mine = nil
		return nil
	}
	if err := s.mainSender(); err != nil {
		return err
	}
	s.readCreds()
	authed, err := s.authenticated()
	if err != nil {
		return err
	}
	if !authed {
		// Mail without a game's valid token is limited: forged mail
		// "from" a player never costs that player a move. Mail with a
		// tournament's token counts in a window of its own, which forged
		// mail cannot fill.
		tour, err := s.tournamentToken()
		if err != nil {
			return err
		}
		limit := s.rateLimit
		if tour {
			limit = s.tournamentLimit
		}
		if ok, err := limit(); err != nil || !ok {
			return err
		}
	} else if ok, err := s.gameTokenLimit(); err != nil || !ok {
		// Mail with a game's token counts too, generously, in a window
		// of its own.
		return err
	}
	if size := max(q.Size, len(q.Body)); size > s.r.opts.MaxBody {
		s.mine.label = "message too large"
		s.mine.add("Your message (%d bytes) is larger than the %s the referee reads, so it was not read. Send commands in a short plain-text mail.",
			size, english.ByteSize(int64(s.r.opts.MaxBody)))
		return nil
	}
	all, err := s.commandLines()
	if err != nil {
		return err
	}
	// A line after an if line that starts with no command word continues
	// it: mail programs wrap long lines.
	var lines, ifs []string
	inIf := false
	for _, l := range all {
		switch {
		case isIfLine(l):
			ifs = append(ifs, l)
			inIf = true
		case inIf && !isVerb(verbOf(l)) && len(ifs[len(ifs)-1])+len(l) < MaxLineBytes:
			ifs[len(ifs)-1] += " " + strings.TrimSpace(l)
		default:
			inIf = false
			lines = append(lines, l)
		}
	}
	if len(all) == 0 {
		s.mine.label = "no command"
		s.mine.add("The referee found no command in your message (quoted text and signatures are skipped).")
		s.mine.add(shortHelp)
		g, err := s.contextGame()
		var ue *userError
		if err != nil && !errors.As(err, &ue) {
			return err
		}
		s.mine.show(g)
		return nil
	}
	if len(lines) > MaxCommands {
		s.mine.add("Your message has %d lines of commands; only the first %d were read.", len(lines), MaxCommands)
		lines = lines[:MaxCommands]
	}
	for i, l := range lines {
		err := s.line(l, s.context != 0)
		if err == nil {
			continue
		}
		var ue *userError
		if !errors.As(err, &ue) {
			return err
		}
		s.refuse(l, ue)
		if rest := len(lines) - i - 1; rest == 1 {
			s.mine.add("The command after it was not read.")
		} else if rest > 1 {
			s.mine.add("The %s after it were not read.", english.Plural(rest, "command"))
		}
		if len(ifs) > 0 {
			s.mine.add("Your conditional lines were not read either (they start from the position your commands leave): send them again with the commands corrected.")
		}
		return nil
	}
	return s.ifLines(ifs)
}

// ifLines reads the conditional lines of the message, for the game it
// answers (see conditionLines).
func (s *session) ifLines(ifs []string) error {
	if len(ifs) == 0 {
		return nil
	}
	if len(ifs) > MaxConditionLines {
		s.mine.add("Your message has %d conditional lines; a seat keeps at most %d in a game, so only the first %d were read.",
			len(ifs), MaxConditionLines, MaxConditionLines)
		ifs = ifs[:MaxConditionLines]
	}
	g, err := s.contextGame()
	if err == nil && g == nil {
		err = mistake(nil, "if lines in a reply to the game's mail (its subject carries [pbem #ID TOKEN])",
			"conditional lines need a game: this message is no reply to a game's mail")
	}
	if err == nil {
		err = s.conditionLines(g, ifs)
	}
	var ue *userError
	if errors.As(err, &ue) {
		s.refuse(ifs[0], ue)
		if len(ifs) > 1 {
			s.mine.add("No conditional line of this message was kept (%d in all).", len(ifs))
		}
		return nil
	}
	return err
}

// commandLines are the lines of the request that are command attempts
// (see attempt): those of the body, else the subject's line (see
// subjectLine), so that a command in both runs once. Every other line is
// prose (a greeting, a sign-off, a remark) and is not read, and so are the
// lines that reproduce the referee's own mail (see ownText.judge): a line
// that would resign, offer or accept a draw, or pass and might be a piece
// of that mail is not played; the reply asks for it again.
func (s *session) commandLines() ([]string, error) {
	g, err := s.contextGame()
	var ue *userError
	if err != nil && !errors.As(err, &ue) {
		return nil, err
	}
	var lines []string
	body, at := bodyLinesAt(s.req.Body)
	own, err := s.ownWords()
	if err != nil {
		return nil, err
	}
	whose := own.judge(body, at)
	var unsure []string
	for i := 0; i < len(body); i++ {
		l := body[i]
		if whose[i] == refereesLine {
			continue // the referee's own words, reproduced
		}
		if sayAlone(l) || noteAlone(l) {
			// say [to SIDES] or note GAMEID alone on its line: the text is
			// the lines after it, up to a line "end" (or the end of the
			// message).
			var text []string
			for i++; i < len(body) && !strings.EqualFold(strings.TrimSpace(body[i]), "end"); i++ {
				text = append(text, body[i])
			}
			if len(text) == 0 {
				lines = append(lines, strings.TrimSpace(l))
			} else {
				lines = append(lines, strings.TrimSpace(l)+"\n"+strings.Join(text, "\n"))
			}
			continue
		}
		l = typographic(l)
		if !s.attempt(l, g, len(lines) <= MaxCommands) {
			continue
		}
		if whose[i] == unsureLine && grave(l) {
			unsure = append(unsure, l)
			continue
		}
		lines = append(lines, l)
	}
	for _, l := range unsure {
		s.mine.add("The line %q is also in the referee's mail your message answers, so it was not played: if you mean it, send it again on a line of its own.", l)
	}
	if len(lines) == 0 {
		if l := typographic(subjectLine(s.req.Subject)); l != "" && s.attempt(l, g, true) {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// sayAlone reports whether l is "say" or "say to SIDE[,SIDE...]" with no
// text after it: a message of several lines follows.
func sayAlone(l string) bool {
	if verbOf(l) != "say" {
		return false
	}
	rest := strings.TrimSpace(l[len(firstWord(l))+strings.Index(l, firstWord(l)):])
	if rest == "" {
		return true
	}
	to, text, isTo := recipients(rest)
	return isTo && len(to) > 0 && strings.TrimSpace(text) == ""
}

// typographic reads a line as the player meant it where a word processor or
// a phone wrote other characters for the notation's (an en dash for "-", ×
// for "x", a no-break space for a blank), as pbem check reads a record;
// the text of say and of note is left as written.
func typographic(l string) string {
	if v := verbOf(l); v == "say" || v == "note" {
		return l
	}
	f, _ := notation.Typographic(l)
	return f
}

// maxPlyLength is the longest line tried as a ply of the game.
const maxPlyLength = 100

// attempt reports whether line l is a command attempt: its first word is a
// command or #N, or it has the shape of a ply (see plyShaped), or it reads
// as a ply of g, the game the mail is about (legal or not; before g starts,
// in its first position). decode allows asking g's notation.
func (s *session) attempt(l string, g *game, decode bool) bool {
	if len(l) > MaxLineBytes {
		return true // refused by line, unread
	}
	if isVerb(verbOf(l)) || plyShaped(l) || isIfLine(l) {
		return true
	}
	if f := firstWord(l); len(f) > 1 && f[0] == '#' && strings.Trim(f[1:], "0123456789") == "" {
		return true
	}
	if g == nil || !decode || len(l) > maxPlyLength {
		return false
	}
	var st engine.State
	if g.b != nil {
		st = g.state()
	} else if start, err := g.startState(); err == nil {
		st = start // a game not started yet: a ply of its first position
	} else {
		return false
	}
	text, _ := splitExpect(l)
	_, err := g.codec.Decode(st, text)
	return err == nil || errors.Is(err, engine.ErrIllegalMove)
}

// readCreds reads the game and token of the subject tag and the
// plus-address; the game they name is the context of the request.
func (s *session) readCreds() {
	q := s.req
	if found, c := subjectTag(q.Subject); found && c.game > 0 {
		s.creds = append(s.creds, c)
		s.context = c.game
	}
	if c, ok := s.r.plusAddress(q.To); ok {
		s.creds = append(s.creds, c)
		if s.context == 0 {
			s.context = c.game
		}
	}
}

// refuse answers a mistake.
func (s *session) refuse(line string, e *userError) {
	if s.refused == nil {
		s.refused = e
	}
	text := quoteLine(line) + "\n" + wrap(upperFirst(e.reason)+".")
	if e.expected != "" {
		text += "\n" + wrap("Expected: "+e.expected+".")
	}
	s.mine.add(text)
	if e.help {
		s.mine.add(shortHelp)
	}
	if e.board != "" {
		s.mine.add(e.board)
	} else if e.game != nil {
		s.mine.show(e.game)
	}
	if s.mine.label == "" {
		s.mine.label = "error"
	}
}

// authenticated reports whether the request carries the sender's valid
// token of a game: a seat's or a watcher's.
func (s *session) authenticated() (bool, error) {
	for _, c := range s.creds {
		if c.token == "" {
			continue
		}
		g, err := s.game(c.game)
		if err != nil {
			var ue *userError
			if errors.As(err, &ue) {
				continue
			}
			return false, err
		}
		if seat := g.seatOf(s.from.Addr); seat >= 0 && tokenEqual(c.token, g.Seats[seat].Token) {
			return true, nil
		}
		if i := g.watchedBy(s.from.Addr); i >= 0 && tokenEqual(c.token, g.Observers[i].Token) {
			return true, nil
		}
	}
	return false, nil
}

// tokenWindow prefixes a sender's address in the key of its window of
// messages with a game's token (tokenLimit).
const tokenWindow = "token:"

// allSenders is the pseudo-sender whose window counts the unauthenticated
// mail of every sender together.
const allSenders = "*"

// rateLimit counts a message without a valid token against its sender's
// window and the window of all senders, and reports whether it may be
// read. Over the sender's limit only the first message is answered; over
// the total, none is.
func (s *session) rateLimit() (bool, error) {
	o := s.r.opts
	count := func(addr string) (*archive.Sender, error) {
		snd, err := s.store.Sender(s.ctx, addr)
		if err != nil {
			return nil, err
		}
		if snd.WindowStart.IsZero() || s.now.Sub(snd.WindowStart) >= o.RateWindow || s.now.Before(snd.WindowStart) {
			snd.WindowStart, snd.Count, snd.Warned = s.now, 0, false
		}
		snd.Count++
		s.senders = append(s.senders, snd)
		return snd, nil
	}
	all, err := count(allSenders)
	if err != nil {
		return false, err
	}
	if all.Count > o.RateLimitTotal {
		s.r.stats.limited.Add(1)
		if !all.Warned {
			all.Warned = true
			s.r.log.Warn("unauthenticated mail over the total limit: not read or answered until the window ends",
				"limit", o.RateLimitTotal, "window", o.RateWindow)
		}
		s.mine = nil
		return false, nil
	}
	snd, err := count(s.from.Addr)
	if err != nil {
		return false, err
	}
	if snd.Count <= o.RateLimit {
		return true, nil
	}
	s.r.stats.limited.Add(1)
	s.limited(snd.WindowStart.Add(o.RateWindow))
	if snd.Warned {
		s.mine = nil
		return false, nil
	}
	snd.Warned = true
	s.mine.label = "too many messages"
	s.mine.add("You sent more than %d messages without a game's token within %s. This one and the next ones until %s are not read; send them again after that, or reply to a mail of your game (its subject carries your token).",
		o.RateLimit, duration(o.RateWindow), stamp(snd.WindowStart.Add(o.RateWindow)))
	return false, nil
}

// window reads a row of bookkeeping (a rate-limit window, an invitation
// record) by its key, once per session; the rows read are stored with the
// session's change.
func (s *session) window(key string) (*archive.Sender, error) {
	for _, snd := range s.senders {
		if snd.Addr == key {
			return snd, nil
		}
	}
	snd, err := s.store.Sender(s.ctx, key)
	if err != nil {
		return nil, err
	}
	s.senders = append(s.senders, snd)
	return snd, nil
}

// tournamentLimit counts a message whose proof is a tournament's token in
// the sender's window of such mail (RateLimit per RateWindow, like mail
// without a token, but kept apart: forged mail cannot fill it). Over it,
// only the first message is answered.
func (s *session) tournamentLimit() (bool, error) {
	return s.tokenLimit("tournament:", s.r.opts.RateLimit, "a tournament's token")
}

// gameTokenLimit counts a message with a game's valid token in the
// sender's window of such mail (TokenRateLimit per RateWindow).
func (s *session) gameTokenLimit() (bool, error) {
	return s.tokenLimit(tokenWindow, s.r.opts.TokenRateLimit, "a game's token")
}

// tokenLimit counts a message in the sender's window of mail with a
// token, kept under prefix+address: limit per RateWindow, apart from mail
// without a token, since forged mail cannot fill it. Over it, only the
// first message is answered, saying it was sent with what.
func (s *session) tokenLimit(prefix string, limit int, what string) (bool, error) {
	o := s.r.opts
	snd, err := s.window(prefix + s.from.Addr)
	if err != nil {
		return false, err
	}
	if snd.WindowStart.IsZero() || s.now.Sub(snd.WindowStart) >= o.RateWindow || s.now.Before(snd.WindowStart) {
		snd.WindowStart, snd.Count, snd.Warned = s.now, 0, false
	}
	snd.Count++
	if snd.Count <= limit {
		return true, nil
	}
	s.r.stats.limited.Add(1)
	s.limited(snd.WindowStart.Add(o.RateWindow))
	if snd.Warned {
		s.mine = nil
		return false, nil
	}
	snd.Warned = true
	s.mine.label = "too many messages"
	s.mine.add("You sent more than %d messages with %s within %s. This one and the next ones until %s are not read; send them again after that.",
		limit, what, duration(o.RateWindow), stamp(snd.WindowStart.Add(o.RateWindow)))
	return false, nil
}

// game loads a game once per session. A game that does not exist is a
// mistake.
func (s *session) game(id int64) (*game, error) {
	if g, ok := s.games[id]; ok {
		return g, nil
	}
	ag, err := s.store.Game(s.ctx, id)
	if errors.Is(err, archive.ErrNotFound) {
		return nil, mistake(nil, "the number of one of your games (the games command lists them)", "there is no game #%d", id)
	}
	if err != nil {
		return nil, err
	}
	return s.adopt(ag)
}

// adopt wraps a stored game (read elsewhere) unless the session has it.
func (s *session) adopt(ag *archive.Game) (*game, error) {
	if g, ok := s.games[ag.ID]; ok {
		return g, nil
	}
	g, err := s.r.open(ag)
	if err != nil {
		return nil, err
	}
	s.games[ag.ID] = g
	return g, nil
}

// contextGame is the game the request's tag or plus-address names, or nil.
// A private game the request may not see (without its token) is refused
// as a game that does not exist.
func (s *session) contextGame() (*game, error) {
	if s.context == 0 {
		return nil, nil
	}
	return s.visibleGame(s.context)
}

// touch marks g to be stored.
func (s *session) touch(g *game) {
	if !slices.Contains(s.changed, g) {
		s.changed = append(s.changed, g)
	}
}

// player loads what is kept about an address, once per session.
func (s *session) player(addr string) (*archive.Player, error) {
	addr = normAddr(addr)
	if p, ok := s.players[addr]; ok {
		return p, nil
	}
	p, err := s.store.Player(s.ctx, addr)
	if err != nil {
		return nil, err
	}
	s.players[addr] = p
	return p, nil
}

func (s *session) touchPlayer(p *archive.Player) {
	if !slices.Contains(s.playerChanged, p) {
		s.playerChanged = append(s.playerChanged, p)
	}
}

// authorize checks that the sender plays g and gave its token, and
// returns the seat.
func (s *session) authorize(g *game) (int, error) {
	seat := g.seatOf(s.from.Addr)
	if s.bot && seat >= 0 {
		return seat, nil // PlayBot checked that the seat is a bot's
	}
	var named []cred
	for _, c := range s.creds {
		if c.game == g.ID && c.token != "" {
			named = append(named, c)
		}
	}
	if seat < 0 {
		// The same refusal whether or not the mail quotes a player's valid
		// token: a refusal must not confirm a token to a stranger.
		return -1, mistake(nil, "a command about one of your own games", "you (%s) are not a player of game #%d", s.from.Addr, g.ID)
	}
	how := fmt.Sprintf("a reply to a mail of game #%d (its subject carries [pbem #%d TOKEN]), or a mail to its reply address", g.ID, g.ID)
	if len(named) == 0 {
		return -1, mistake(nil, how, "a command for game #%d needs your token for that game", g.ID)
	}
	for _, c := range named {
		if tokenEqual(c.token, g.Seats[seat].Token) {
			return seat, nil
		}
	}
	return -1, mistake(nil, how, "the token for game #%d is wrong", g.ID)
}

// news is something that happened in a game, for the mails to the others.
type news struct {
	text string
	// seats that get it; nil means every seat
	seats []int
	// observers get it too
	observers bool
}

// tell records news of g for every seat (but the sender) and, when
// observers is set, the observers.
func (s *session) tell(g *game, observers bool, format string, args ...any) {
	s.touch(g)
	g.news = append(g.news, news{text: fmt.Sprintf(format, args...), observers: observers})
}

// tellSeats records news for some seats only.
func (s *session) tellSeats(g *game, seats []int, format string, args ...any) {
	s.touch(g)
	g.news = append(g.news, news{text: fmt.Sprintf(format, args...), seats: seats})
}

// change assembles everything the session changed into one commit.
func (s *session) change() *archive.Change {
	ch := &archive.Change{At: s.now, Senders: s.senders, Players: s.playerChanged, Entries: s.entries, Notes: s.notes, Analyses: s.analyses,
		Unsubscribe: s.unsubscribe, Resubscribe: s.resubscribe, Addresses: s.addressChange}
	if s.req != nil {
		ch.MessageID = s.key
	}
	for _, g := range s.changed {
		ch.Games = append(ch.Games, g.Game)
	}
	if s.answerDirect(s.mine) {
		// The sender reads the reply from the caller.
	} else if _, bot := BotLevel(s.from.Addr); s.mine != nil && !bot && (len(s.mine.paras) > 0 || len(s.mine.blocks) > 0) {
		ch.Outbox = append(ch.Outbox, s.compose(s.mine))
	}
	for _, g := range s.changed {
		for _, d := range s.newsDrafts(g) {
			ch.Outbox = append(ch.Outbox, s.compose(d))
		}
	}
	for _, d := range s.extra {
		ch.Outbox = append(ch.Outbox, s.compose(d))
	}
	s.flushTournaments(ch)
	return ch
}

// newsDrafts writes one mail per recipient of g's news (never the sender,
// who reads everything in the reply).
func (s *session) newsDrafts(g *game) []*draft {
	type rcpt struct {
		to   Address
		seat int
	}
	var rcpts []rcpt
	for i, st := range g.Seats {
		rcpts = append(rcpts, rcpt{st.Player, i})
	}
	for _, o := range g.Observers {
		if o.Confirmed && !s.unsubscribed(o.Addr, archive.UnsubWatch) {
			rcpts = append(rcpts, rcpt{o.Address, -1})
		}
	}
	var out []*draft
	for _, rc := range rcpts {
		if s.from.Addr != "" && normAddr(rc.to.Addr) == s.from.Addr {
			continue
		}
		if _, bot := BotLevel(rc.to.Addr); bot {
			continue // no mail goes to a bot's seat
		}
		d := &draft{to: rc.to, game: g, seat: rc.seat, kind: "news"}
		for _, n := range g.news {
			if rc.seat < 0 && !n.observers || rc.seat >= 0 && n.seats != nil && !slices.Contains(n.seats, rc.seat) {
				continue
			}
			d.paras = append(d.paras, n.text)
		}
		if len(d.paras) == 0 {
			continue
		}
		d.blocks = []*game{g}
		out = append(out, d)
	}
	return out
}

// compose turns a draft into an outbox mail: subject, threading, body.
func (s *session) compose(d *draft) *archive.Outgoing {
	r := s.r
	g := d.game
	seat := d.seat
	if g == nil && len(d.blocks) > 0 {
		g = d.blocks[0]
		seat = g.seatOf(d.to.Addr)
	}
	o := &archive.Outgoing{Mail: archive.Mail{
		From: r.Address(),
		To:   []Address{{Name: d.to.Name, Addr: d.to.Addr}},
		Date: s.now,
	}}
	// Whoever does not play a game reads its players' names, never their
	// addresses (docs/OPERATING.md: what a stranger can see).
	var hidden []*game
	for _, x := range append([]*game{g}, d.blocks...) {
		if x != nil && !x.public && x.seatOf(d.to.Addr) < 0 && !slices.Contains(hidden, x) {
			x.public = true
			hidden = append(hidden, x)
		}
	}
	defer func() {
		for _, x := range hidden {
			x.public = false
			o.Subject, o.Text = x.redact(o.Subject), x.redact(o.Text)
		}
		s.addHTML(o, d) // from the final text
	}()
	o.MessageID = s.messageID(d, g)
	o.AutoSubmitted = archive.AutoReplied
	if s.req == nil {
		o.AutoSubmitted = archive.AutoGenerated // the clock: reminders, time forfeits, expiry
	}
	var body strings.Builder
	body.WriteString(d.prose())
	for _, b := range d.blocks {
		if body.Len() > 0 {
			body.WriteString("\n\n")
		}
		seat := b.seatOf(d.to.Addr)
		body.WriteString(s.block(b, seat, len(d.blocks) > 1))
		if seat >= 0 {
			// The player's own notes end the player's own board, in no
			// one else's mail.
			if notes := s.notesBlock(b, d.to.Addr); notes != "" {
				body.WriteString("\n\n" + notes)
			}
		}
	}
	if u := r.gameURL(g); u != "" {
		body.WriteString("\n\nThe game on the web: " + u)
	}
	body.WriteString("\n\n-- \n")
	if g != nil {
		o.GameID = g.ID
		token := ""
		if seat >= 0 {
			token = g.Seats[seat].Token
		} else if i := g.watchedBy(d.to.Addr); i >= 0 {
			token = g.Observers[i].Token
		}
		o.Subject = r.subject(g, token)
		o.ReplyTo = &Address{Name: r.opts.Name, Addr: r.replyAddress(g, token)}
		o.References = []string{g.Thread}
		o.InReplyTo = g.Thread
	} else {
		label := d.label
		if label == "" {
			label = "reply"
		}
		o.Subject = "[pbem] " + label
	}
	if d == s.mine && s.req != nil {
		if id := trimID(s.req.MessageID); id != "" {
			refs := s.req.References
			if len(refs) > 8 {
				refs = refs[len(refs)-8:]
			}
			for _, x := range refs {
				if x = trimID(x); x != "" && !slices.Contains(o.References, x) {
					o.References = append(o.References, x)
				}
			}
			if !slices.Contains(o.References, id) {
				o.References = append(o.References, id)
			}
			o.InReplyTo = id
		}
	}
	body.WriteString(s.footer(g, seat))
	o.Text = body.String()
	reply := ""
	if o.ReplyTo != nil {
		reply = o.ReplyTo.Addr
	}
	o.Calendar = s.calendarPart(d, reply)
	if kind := unsubscribeKind(d); kind != "" {
		o.Unsubscribe = r.unsubscribeHeader(d.to.Addr, kind)
	}
	return o
}

// messageID is fixed by what the mail answers and who gets it, so that
// processing a request again (after a conflict) writes the same ids.
func (s *session) messageID(d *draft, g *game) string {
	var id int64
	if g != nil {
		id = g.ID
	}
	return s.uniqueID(fmt.Sprintf("pbem.%d", id), s.key, d.kind, normAddr(d.to.Addr), strconv.FormatInt(id, 10))
}

// uniqueID is the Message-ID prefix.HASH.MARK@domain of a mail, HASH a
// digest of parts (what it answers, its kind, its recipient and game)
// keyed with the referee's secret (Options.Secret), so that no one can
// compute it from the request's Message-ID, and MARK the mark of the id
// (OwnMessageID). It is made unique within the session: a second mail
// with the same parts (two answers to one address in one message,
// "standings" on two lines) gets the digest of parts and its rank, so
// that no two mails of a session share an id. The same request processed
// again gives the same ids.
func (s *session) uniqueID(prefix string, parts ...string) string {
	if s.ids == nil {
		s.ids = map[string]bool{}
	}
	text := strings.Join(parts, "\x00")
	for n := 1; ; n++ {
		h := hmac.New(sha256.New, s.r.opts.Secret)
		h.Write([]byte("message-id\x00" + text))
		base := prefix + "." + hex.EncodeToString(h.Sum(nil)[:10])
		id := s.r.MarkedMessageID(base)
		if !s.ids[id] {
			s.ids[id] = true
			return id
		}
		text = strings.Join(parts, "\x00") + "\x00" + strconv.Itoa(n+1)
	}
}

// threadID is the root every mail of a new game refers to.
func (s *session) threadID(id int64) string {
	h := sha256.Sum256([]byte(s.key + "\x00thread"))
	return fmt.Sprintf("pbem.%d.game.%s@%s", id, hex.EncodeToString(h[:6]), s.r.domain)
}

// game is a stored game with its rules and position.
type game struct {
	*archive.Game
	codec notation.Codec
	sides []string
	opts  engine.Options
	// b records the game while it is played; nil before it starts.
	b *notation.Builder
	// moves and comments replay it: comments[0] are before the first ply,
	// comments[i] after ply i.
	moves    []engine.Move
	comments [][]string
	tags     []notation.Tag
	// result and termination of a game that is over.
	result, termination string
	news                []news
	// public is set while a mail to someone who does not play the game is
	// written: players are named by publicName.
	public bool
}

// publicName is how a seat's player is shown to those who do not play the
// game: the display name, else the address's local part ("bob"), by the
// web's one rule (archive.PublicName).
func (g *game) publicName(seat int) string {
	p := g.Seats[seat].Player
	return archive.PublicName(p.Name + " <" + p.Addr + ">")
}

// redact replaces the players' addresses in text by their public names:
// "Bob <bob@x>" and "bob@x" become "Bob".
func (g *game) redact(text string) string {
	for i, st := range g.Seats {
		if st.Player.Addr == "" {
			continue
		}
		addr := regexp.QuoteMeta(st.Player.Addr)
		text = regexp.MustCompile(`(?i)\s+<`+addr+`>`).ReplaceAllLiteralString(text, "")
		text = regexp.MustCompile(`(?i)<?`+addr+`>?`).ReplaceAllLiteralString(text, g.publicName(i))
	}
	return text
}

// open wraps a stored game: its codec, and (once started) its position,
// replayed from the record.
func (r *Referee) open(ag *archive.Game) (*game, error) {
	codec, err := r.opts.Lookup(ag.Game)
	if err != nil {
		return nil, mistake(nil, "", "game #%d is a game of %s, which this referee does not play now (%v)", ag.ID, ag.Game, err)
	}
	g := &game{Game: ag, codec: codec}
	o := engine.Options{Players: ag.Options.Players, Board: ag.Options.Board}
	if g.sides, err = codec.Rules().Sides(o); err != nil {
		panic(fmt.Sprintf("game %d: stored options: %v", ag.ID, err))
	}
	g.opts = o
	if ag.Record == "" {
		return g, nil
	}
	recs, probs := notation.Parse(fmt.Sprintf("game %d", ag.ID), []byte(ag.Record))
	if len(probs) > 0 || len(recs) != 1 {
		panic(fmt.Sprintf("game %d: stored record does not parse: %v", ag.ID, probs))
	}
	rec := recs[0]
	for _, t := range rec.Tags {
		if t.Name != "Game" && t.Name != "Result" {
			g.tags = append(g.tags, notation.Tag{Name: t.Name, Value: t.Value})
		}
	}
	g.result = rec.Result
	g.termination, _ = rec.Tag("Termination")
	b, err := notation.NewBuilder(codec, o, g.tags)
	if err != nil {
		panic(fmt.Sprintf("game %d: %v", ag.ID, err))
	}
	g.comments = [][]string{rec.Main.Comments}
	for _, c := range rec.Main.Comments {
		b.Comment(c)
	}
	for i, p := range rec.Main.Plies {
		m, err := codec.Decode(b.Line().State(), p.Text)
		if err == nil {
			err = b.Play(m)
		}
		if err != nil {
			panic(fmt.Sprintf("game %d: stored ply %d %q: %v", ag.ID, i+1, p.Text, err))
		}
		g.moves = append(g.moves, m)
		g.comments = append(g.comments, p.Comments)
		for _, c := range p.Comments {
			b.Comment(c)
		}
	}
	g.b = b
	return g, nil
}

func (g *game) id() string { return strconv.FormatInt(g.ID, 10) }

// kind is the game's id in the catalog, e.g. "castles".
func (g *game) kind() string { return g.Game.Game }

// line is the game so far (nil before it starts).
func (g *game) line() *engine.Line {
	if g.b == nil {
		return nil
	}
	return g.b.Line()
}

func (g *game) state() engine.State { return g.line().State() }

// plies is the number of plies played.
func (g *game) plies() int { return len(g.moves) }

// mover is the seat to move.
func (g *game) mover() int { return g.state().ToMove() }

func (g *game) seatOf(addr string) int {
	a := normAddr(addr)
	for i, st := range g.Seats {
		if normAddr(st.Player.Addr) == a {
			return i
		}
	}
	return -1
}

func (g *game) watchedBy(addr string) int {
	a := normAddr(addr)
	for i, o := range g.Observers {
		if normAddr(o.Addr) == a {
			return i
		}
	}
	return -1
}

// name is how a seat's player is called in mails: the display name, else
// the address (publicName while a mail to a non-player is written).
func (g *game) name(seat int) string {
	if g.public {
		return g.publicName(seat)
	}
	p := g.Seats[seat].Player
	if p.Name != "" {
		return p.Name
	}
	return p.Addr
}

// who is the name and side of a seat: "Alice (First)".
func (g *game) who(seat int) string {
	return fmt.Sprintf("%s (%s)", g.name(seat), g.Seats[seat].Side)
}

// rebuild replays the first n plies (for an undo).
func (g *game) rebuild(n int) error {
	b, err := notation.NewBuilder(g.codec, g.opts, g.tags)
	if err != nil {
		return err
	}
	for _, c := range g.comments[0] {
		b.Comment(c)
	}
	for i := range n {
		if err := b.Play(g.moves[i]); err != nil {
			return err
		}
		for _, c := range g.comments[i+1] {
			b.Comment(c)
		}
	}
	g.b, g.moves, g.comments = b, g.moves[:n:n], g.comments[:n+1:n+1]
	g.Record = notation.Format(b.Game())
	return nil
}

// play records a ply.
func (g *game) play(m engine.Move) error {
	if err := g.b.Play(m); err != nil {
		return err
	}
	g.moves = append(g.moves, m)
	g.comments = append(g.comments, nil)
	g.Record = notation.Format(g.b.Game())
	return nil
}

// comment adds a comment after the last ply.
func (g *game) comment(text string) {
	g.b.Comment(text)
	g.comments[len(g.comments)-1] = append(g.comments[len(g.comments)-1], text)
	g.Record = notation.Format(g.b.Game())
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
