package referee

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"pbem/archive"
	"pbem/engine"
	"pbem/notation"
)

// AdminError is an operator's mistake: a bad command, a game in the wrong
// state. Nothing was applied.
type AdminError struct{ Reason string }

func (e *AdminError) Error() string { return e.Reason }

func adminMistake(format string, args ...any) error {
	return &AdminError{Reason: fmt.Sprintf(format, args...)}
}

// AdminUsage lists the admin actions and their arguments.
const AdminUsage = `adjudicate N RESULT "reason"   end game N with RESULT (1-0, 0-1, 1/2-1/2, or a ranking such as G>R=B)
abort N "reason"               stop game N without a result
clock N +DURATION "reason"     give the side to move in game N more time (+3d, +36h)
replace N SEAT ADDRESS "reason"  give seat N (1, 2, ... or the side's name) to a substitute
resend N                       mail the last board to every player of game N
block ADDRESS|@DOMAIN "reason" drop mail from there unanswered
unblock ADDRESS|@DOMAIN        read mail from there again`

// adminAction is a parsed admin command.
type adminAction struct {
	verb   string
	game   int64
	args   []string // after the game id (or the verb, for block and unblock)
	reason string
}

// adminArity is how many arguments each verb takes after its game id (or
// after the verb for block and unblock), and whether it needs a reason.
var adminArity = map[string]struct {
	game, args int
	reason     bool
}{
	"adjudicate": {1, 1, true},
	"abort":      {1, 0, true},
	"clock":      {1, 1, false},
	"replace":    {1, 2, false},
	"resend":     {1, 0, false},
	"block":      {0, 1, false},
	"unblock":    {0, 1, false},
}

// AdminVerbs are the admin actions.
func AdminVerbs() []string {
	var v []string
	for k := range adminArity {
		v = append(v, k)
	}
	slices.Sort(v)
	return v
}

// parseAdmin reads an admin command given as words (the command line's
// arguments, or a mail's line split by splitWords).
func parseAdmin(words []string) (*adminAction, error) {
	if len(words) == 0 {
		return nil, adminMistake("no admin command; expected one of %s", strings.Join(AdminVerbs(), ", "))
	}
	a := &adminAction{verb: strings.ToLower(words[0])}
	ar, ok := adminArity[a.verb]
	if !ok {
		return nil, adminMistake("unknown admin command %q; expected one of %s", words[0], strings.Join(AdminVerbs(), ", "))
	}
	rest := words[1:]
	if ar.game > 0 {
		if len(rest) == 0 {
			return nil, adminMistake("%s needs a game number", a.verb)
		}
		id, ok := parseID(rest[0])
		if !ok {
			return nil, adminMistake("%q is not a game number", rest[0])
		}
		a.game, rest = id, rest[1:]
	}
	if len(rest) < ar.args {
		return nil, adminMistake("%s needs %d more argument(s); usage:\n%s", a.verb, ar.args-len(rest), usageOf(a.verb))
	}
	a.args, rest = rest[:ar.args], rest[ar.args:]
	a.reason = strings.TrimSpace(strings.Join(rest, " "))
	if ar.reason && a.reason == "" {
		return nil, adminMistake("%s needs a reason (it is told to the players and kept in the audit); usage:\n%s", a.verb, usageOf(a.verb))
	}
	return a, nil
}

func usageOf(verb string) string {
	for l := range strings.SplitSeq(AdminUsage, "\n") {
		if strings.HasPrefix(l, verb+" ") {
			return l
		}
	}
	return AdminUsage
}

// line is the command as the audit keeps it.
func (a *adminAction) line() string {
	w := []string{a.verb}
	if a.game > 0 {
		w = append(w, strconv.FormatInt(a.game, 10))
	}
	w = append(w, a.args...)
	return strings.Join(w, " ")
}

// AdminWords splits an admin command line into words; a double-quoted
// part ("the reason") is one word.
func AdminWords(l string) ([]string, error) { return splitWords(l) }

// splitWords splits a line into words; a double-quoted part is one word.
func splitWords(l string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in, have := false, false
	for _, r := range l {
		switch {
		case r == '"':
			in, have = !in, true
		case unicode.IsSpace(r) && !in:
			if have {
				out = append(out, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if in {
		return nil, adminMistake("a quote is not closed in %q", l)
	}
	if have {
		out = append(out, cur.String())
	}
	return out, nil
}

// parseExtension reads "+DURATION": +3d, +36h, +90m, +1d12h.
func parseExtension(v string) (time.Duration, error) {
	bad := adminMistake("bad extension %q; expected + and a duration such as +3d, +36h or +1d12h", v)
	rest, ok := strings.CutPrefix(v, "+")
	if !ok || rest == "" {
		return 0, bad
	}
	var d time.Duration
	if days, after, ok := strings.Cut(rest, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 {
			return 0, bad
		}
		d, rest = time.Duration(n)*24*time.Hour, after
	}
	if rest != "" {
		x, err := time.ParseDuration(rest)
		if err != nil || x < 0 {
			return 0, bad
		}
		d += x
	}
	if d <= 0 || d > 365*24*time.Hour {
		return 0, adminMistake("extension %q is out of range; expected more than nothing and at most a year", v)
	}
	return d, nil
}

// Admin carries out an operator's action, given as words (pbem admin's
// arguments after "admin"), by actor ("cli:USER", or an admin's address).
// Like a player's command it is one commit: the game's change, the mails
// to the players it touches and an audit record together. It returns what
// was done, for the operator. An *AdminError is the operator's mistake;
// nothing was applied.
func (r *Referee) Admin(ctx context.Context, actor string, words []string) (string, error) {
	a, err := parseAdmin(words)
	if err != nil {
		return "", err
	}
	var last error
	for range maxAttempts {
		now := r.opts.Clock.Now().UTC()
		ch, text, err := r.adminChange(ctx, r.store, actor, a, now)
		if err != nil {
			return "", err
		}
		err = r.store.Commit(ctx, ch)
		if err == nil {
			r.stats.queued.Add(int64(len(ch.Outbox)))
			r.log.Info("admin action", "actor", actor, "action", a.line(), "reason", a.reason)
			return text, nil
		}
		if !errors.Is(err, archive.ErrConflict) {
			return "", fmt.Errorf("referee: admin %s: %w", a.line(), err)
		}
		r.stats.conflicts.Add(1)
		last = err
	}
	return "", fmt.Errorf("referee: admin %s: %d attempts conflicted: %w", a.line(), maxAttempts, last)
}

// adminChange decides what an admin action changes.
func (r *Referee) adminChange(ctx context.Context, st Store, actor string, a *adminAction, now time.Time) (ch *archive.Change, text string, err error) {
	s := r.newSession(ctx, nil, fmt.Sprintf("admin:%s:%s:%d", actor, a.line(), now.UnixNano()))
	s.store = st
	s.now = now
	audit := &archive.Audit{At: now, Actor: actor, Action: a.line(), GameID: a.game, Reason: a.reason}
	why := ""
	if a.reason != "" {
		why = " Reason: " + a.reason
	}
	switch a.verb {
	case "block", "unblock":
		p, err := archive.BlockPattern(a.args[0])
		if err != nil {
			return nil, "", adminMistake("%s", strings.TrimPrefix(err.Error(), "archive: "))
		}
		audit.Action = a.verb + " " + p
		ch := &archive.Change{At: now, Audit: []*archive.Audit{audit},
			Blocks: []*archive.Block{{Pattern: p, Actor: actor, Reason: a.reason, At: now, Remove: a.verb == "unblock"}}}
		if a.verb == "block" {
			return ch, fmt.Sprintf("blocked %s: mail from there is dropped unanswered", p), nil
		}
		return ch, fmt.Sprintf("unblocked %s", p), nil
	}
	g, err := s.game(a.game)
	if err != nil {
		var ue *userError
		if errors.As(err, &ue) {
			return nil, "", adminMistake("game #%d: %s", a.game, ue.reason)
		}
		return nil, "", err
	}
	var extra []*archive.Outgoing
	switch a.verb {
	case "adjudicate":
		if g.Status != archive.Playing {
			return nil, "", adminMistake("game #%d is %s, not playing: only a game under way is adjudicated", g.ID, g.Status)
		}
		ranks, err := notation.ParseResult(g.codec, g.sides, a.args[0])
		if err != nil {
			// An adjudication needs a result: not the "*" the record
			// syntax also allows.
			msg := strings.TrimSuffix(strings.TrimSuffix(err.Error(), ", or *"), " or *")
			return nil, "", adminMistake("game #%d: %s", g.ID, msg)
		}
		if ranks == nil {
			return nil, "", adminMistake("game #%d: * is no result; expected the result to record (abort stops a game without one)", g.ID)
		}
		msg := "The referee's operator adjudicated the game: " + a.args[0] + "." + why
		s.tell(g, true, "%s", msg)
		s.finish(g, outcomeOf(ranks, "adjudicated: "+a.reason), "adjudication", "adjudicated by the referee's operator: "+a.reason)
		text = fmt.Sprintf("game #%d adjudicated %s", g.ID, g.result)
	case "abort":
		if ts := s.tstore(); g.Status == archive.Playing {
			t, err := ts.TournamentOfGame(s.ctx, g.ID)
			if err == nil {
				return nil, "", adminMistake("game #%d is a game of tournament %d, whose standings need its result: adjudicate it instead", g.ID, t.ID)
			}
			if !errors.Is(err, archive.ErrNotFound) {
				return nil, "", err
			}
		}
		switch g.Status {
		case archive.Invited:
			g.Status, g.Due = archive.Declined, zeroTime
		case archive.Playing:
			g.comment("aborted by the referee's operator: " + a.reason)
			g.b.Finish(nil, "")
			g.b.Game().Record.SetTag("Termination", "abandoned")
			g.Record = notation.Format(g.b.Game())
			g.result, g.termination = "*", "abandoned"
			g.Status, g.Offers, g.Due, g.Reminded = archive.Over, nil, zeroTime, 0
		default:
			return nil, "", adminMistake("game #%d is %s already: only an invited or playing game is aborted", g.ID, g.Status)
		}
		s.tell(g, true, "The referee's operator stopped game #%d without a result.%s", g.ID, why)
		text = fmt.Sprintf("game #%d aborted", g.ID)
	case "clock":
		d, err := parseExtension(a.args[0])
		if err != nil {
			return nil, "", err
		}
		switch g.Status {
		case archive.Invited:
			g.Deadline = g.Deadline.Add(d)
			g.Due = g.nextDue()
			s.tell(g, false, "The referee's operator extended the invitation by %s: it now expires %s.%s", duration(d), stamp(g.Deadline), why)
		case archive.Playing:
			g.Deadline = g.Deadline.Add(d)
			g.Reminded = g.remindedBefore(now)
			g.Due = g.nextDue()
			s.tell(g, false, "The referee's operator gave %s %s more: the move is due by %s.%s", g.who(g.mover()), duration(d), stamp(g.Deadline), why)
		default:
			return nil, "", adminMistake("game #%d is %s: only an invited or playing game has a clock", g.ID, g.Status)
		}
		s.touch(g)
		text = fmt.Sprintf("game #%d: deadline now %s", g.ID, stamp(g.Deadline))
	case "replace":
		if !archive.Active(g.Status) {
			return nil, "", adminMistake("game #%d is %s: only an invited or playing game takes a substitute", g.ID, g.Status)
		}
		seat := g.seatArg(a.args[0])
		if seat < 0 {
			return nil, "", adminMistake("game #%d has no seat %q; expected 1 to %d or a side (%s)", g.ID, a.args[0], len(g.Seats), strings.Join(g.sides, ", "))
		}
		to := normAddr(a.args[1])
		if !validAddr(to) || r.ownAddress(to) {
			return nil, "", adminMistake("%q is not an address a player can have", a.args[1])
		}
		if g.seatOf(to) >= 0 {
			return nil, "", adminMistake("%s already plays game #%d", to, g.ID)
		}
		token, err := r.newToken()
		if err != nil {
			return nil, "", err
		}
		old := g.Seats[seat]
		// The player replaced gets a mail of its own: it no longer has a
		// seat, so the game's news does not reach it.
		d := &draft{to: old.Player, seat: -1, kind: "replaced", label: fmt.Sprintf("game #%d: you were replaced", g.ID)}
		d.add("The referee's operator gave your seat (%s) in game #%d to a substitute. Your token for that game no longer works.%s", old.Side, g.ID, why)
		extra = append(extra, s.compose(d))
		g.Seats[seat] = archive.Seat{Side: old.Side, Player: Address{Addr: to}, Token: token, Joined: true}
		if g.b != nil {
			// The record names the substitute from now on, and says
			// where the seat changed hands.
			was := old.Player.Addr
			for i := range g.tags {
				if g.tags[i].Name == old.Side {
					was, g.tags[i].Value = g.tags[i].Value, to
				}
			}
			g.b.Game().Record.SetTag(old.Side, to)
			g.comment(fmt.Sprintf("%s: %s substitutes for %s", old.Side, to, was))
			if g.Status == archive.Playing && g.mover() == seat {
				if err := s.startTurn(g); err != nil {
					return nil, "", err
				}
			}
		}
		s.tell(g, true, "The referee's operator gave the seat of %s to a substitute, %s.%s", old.Side, to, why)
		text = fmt.Sprintf("game #%d: seat %d (%s) given to the substitute, with a new token", g.ID, seat+1, old.Side)
	case "resend":
		s.tell(g, false, "The referee's operator sent the game's last board again.")
		text = fmt.Sprintf("game #%d: board resent to its players", g.ID)
	}
	// An adjudicated tournament game counts in its standings.
	if err := s.tournamentResults(); err != nil {
		return nil, "", err
	}
	ch = s.change()
	ch.Outbox = append(ch.Outbox, extra...)
	ch.Audit = append(ch.Audit, audit)
	return ch, text, nil
}

// outcomeOf is the outcome of ranks given by an operator.
func outcomeOf(ranks []int, reason string) engine.Outcome {
	return engine.Outcome{Over: true, Rank: ranks, Reason: reason}
}

// seatArg reads a seat: its number from 1, or its side's name.
func (g *game) seatArg(v string) int {
	if n, err := strconv.Atoi(v); err == nil {
		if n >= 1 && n <= len(g.Seats) {
			return n - 1
		}
		return -1
	}
	for i, st := range g.Seats {
		if strings.EqualFold(st.Side, v) {
			return i
		}
	}
	return -1
}

// SetAdmins replaces Options.Admins while the referee runs (pbem serve
// reloads its configuration on SIGHUP).
func (r *Referee) SetAdmins(addrs []string) {
	a := slices.Clone(addrs)
	r.admins.Store(&a)
}

// isAdmin reports whether addr is one of the configured admins.
func (r *Referee) isAdmin(addr string) bool {
	a := normAddr(addr)
	admins := r.opts.Admins
	if p := r.admins.Load(); p != nil {
		admins = *p
	}
	for _, x := range admins {
		if normAddr(x) == a {
			return true
		}
	}
	return false
}

// AdminTokenLife is how long an admin's confirmation token works.
const AdminTokenLife = 24 * time.Hour

// blockedSender reports whether the request's sender is blocked. The
// blocked senders and admin tokens are read from the store: in a batch
// whose changes hold some not yet committed, the batch is committed first
// (errFlush), so that a request sees them as it would one by one.
func (r *Referee) blockedSender(ctx context.Context, st Store, req *Request) (bool, error) {
	if req == nil || req.From.Addr == "" {
		return false, nil
	}
	if operatorsPending(st) {
		return false, errFlush
	}
	return st.Blocked(ctx, normAddr(req.From.Addr))
}

// operatorsPending reports whether st is a batch whose changes block or
// unblock senders or issue or use admin tokens.
func operatorsPending(st Store) bool {
	var v *view
	switch x := st.(type) {
	case *view:
		v = x
	case tview:
		v = x.view
	default:
		return false
	}
	for _, ch := range v.changes {
		if len(ch.Blocks) > 0 || len(ch.AdminPending) > 0 {
			return true
		}
	}
	return false
}

// validAdminConfirmation reports whether words are "admin confirm TOKEN"
// with a token that still waits for the sender: unused, unexpired and
// issued to this admin.
func (s *session) validAdminConfirmation(as Store, words []string) (bool, error) {
	if len(words) != 3 || !strings.EqualFold(words[1], "confirm") {
		return false, nil
	}
	p, err := as.AdminPendingByToken(s.ctx, words[2])
	if errors.Is(err, archive.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return !p.Done && normAddr(p.Admin) == s.from.Addr && s.now.Sub(p.Created) <= AdminTokenLife, nil
}

// adminMail handles a message from a configured admin whose first command
// line is "admin ...": ok is false for any other message. "admin CMD ..."
// only mails the admin a token; "admin confirm TOKEN" from that admin
// carries CMD out. A forged From never sees the token, so it can do
// nothing; the confirmation goes to the configured address itself.
func (s *session) adminMail() (ch *archive.Change, ok bool, err error) {
	r := s.r
	if !r.isAdmin(s.from.Addr) || r.automatic(s.req) != "" {
		return nil, false, nil
	}
	line := ""
	for _, l := range bodyLines(s.req.Body) {
		if verbOf(l) == "admin" {
			line = l
			break
		}
	}
	if line == "" {
		return nil, false, nil
	}
	as := r.store
	ch = &archive.Change{MessageID: s.key, At: s.now}
	// An admin's From is as forgeable as anyone's: its mail counts against
	// the limits of mail without a game's token, so that forged commands
	// cannot flood the admin with tokens. A confirmation with a valid
	// token is the admin's own (only the admin's mailbox saw the token):
	// it is never limited, so forged mail cannot lock the admin out.
	words, werr := splitWords(line)
	valid, err := s.validAdminConfirmation(as, words)
	if err != nil {
		return nil, false, err
	}
	within := valid
	if !valid {
		if within, err = s.rateLimit(); err != nil {
			return nil, false, err
		}
	}
	ch.Senders = s.senders
	if !within {
		if s.mine != nil && len(s.mine.paras) > 0 {
			ch.Outbox = append(ch.Outbox, s.compose(s.mine))
		}
		return ch, true, nil
	}
	s.mine.label = "admin"
	if werr == nil && len(words) < 2 {
		werr = adminMistake("admin needs a command; expected one of %s, or confirm TOKEN", strings.Join(AdminVerbs(), ", "))
	}
	switch {
	case werr != nil:
		s.mine.add("%v", werr)
	case strings.EqualFold(words[1], "confirm"):
		if len(words) != 3 {
			s.mine.add("admin confirm takes the token mailed to you, alone: admin confirm TOKEN")
			break
		}
		p, err := as.AdminPendingByToken(s.ctx, words[2])
		if errors.Is(err, archive.ErrNotFound) || err == nil && (p.Done || normAddr(p.Admin) != s.from.Addr || s.now.Sub(p.Created) > AdminTokenLife) {
			s.mine.add("No admin command waits for that token from you (a token works once, for %s).", duration(AdminTokenLife))
			break
		}
		if err != nil {
			return nil, false, err
		}
		cmdWords, _ := splitWords(p.Command)
		a, aerr := parseAdmin(cmdWords)
		var text string
		if aerr == nil {
			var act *archive.Change
			act, text, aerr = r.adminChange(s.ctx, s.store, s.from.Addr, a, s.now)
			if aerr == nil {
				ch.Games, ch.Entries, ch.Audit, ch.Blocks = act.Games, act.Entries, act.Audit, act.Blocks
				ch.Players, ch.Outbox = act.Players, act.Outbox
			}
		}
		var ae *AdminError
		switch {
		case aerr == nil:
			s.mine.add("Done: %s.", text)
		case errors.As(aerr, &ae):
			s.mine.add("Not done: %s.", ae.Reason)
		default:
			return nil, false, aerr
		}
		ch.AdminPending = append(ch.AdminPending, &archive.AdminPending{Token: p.Token, Admin: p.Admin, Command: p.Command, Done: true})
	default:
		a, err := parseAdmin(words[1:])
		var ae *AdminError
		if errors.As(err, &ae) {
			s.mine.add("%s.", ae.Reason)
			break
		}
		token, err := r.newToken()
		if err != nil {
			return nil, false, err
		}
		cmd := a.line()
		if a.reason != "" {
			cmd += ` "` + strings.ReplaceAll(a.reason, `"`, "") + `"`
		}
		ch.AdminPending = append(ch.AdminPending, &archive.AdminPending{Token: token, Admin: s.from.Addr, Command: cmd, Created: s.now})
		s.mine.add("To carry out the admin command below, reply with its confirmation line alone (it works once, for %s):", duration(AdminTokenLife))
		s.mine.addPre("    " + cmd + "\n\n    admin confirm " + token)
		s.mine.add("If you did not ask for this, ignore this mail: nothing is done without the confirmation, and the token expires unused.")
	}
	ch.Outbox = append([]*archive.Outgoing{s.compose(s.mine)}, ch.Outbox...)
	return ch, true, nil
}
