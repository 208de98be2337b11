package referee

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"pbem/archive"
	"pbem/notation"
)

// Clock tells the referee the time; tests use a fake one.
type Clock interface {
	Now() time.Time
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Store is what the referee needs from storage: archive.Store, and the
// batch's view of it (view), which answers from the batch's changes
// first. Reads see committed data; Commit stores one request's whole effect
// in one transaction and fails with archive.ErrDuplicate (message id seen)
// or archive.ErrConflict (a game or player changed since it was read), in
// which cases nothing was stored.
type Store interface {
	Seen(ctx context.Context, messageID string) (bool, error)
	Game(ctx context.Context, id int64) (*archive.Game, error)
	ActiveGamesOf(ctx context.Context, addr string) ([]*archive.Game, error)
	DueGames(ctx context.Context, now time.Time) ([]*archive.Game, error)
	Player(ctx context.Context, addr string) (*archive.Player, error)
	Sender(ctx context.Context, addr string) (*archive.Sender, error)
	NewGameID(ctx context.Context) (int64, error)
	Commit(ctx context.Context, c *archive.Change) error

	// The batch: several changes in one transaction (one sync to disk),
	// all or none; the changes after the first see the versions the ones
	// before leave.
	CommitBatch(ctx context.Context, cs []*archive.Change) error

	// A batch's reads at once, before it is decided: what Seen, Player,
	// Sender and ActiveGamesOf answer for its keys.
	Prefetch(ctx context.Context, messageIDs, addrs, windows []string) (*archive.Prefetched, error)

	// Operators: blocked senders, and admin commands by mail waiting for
	// their token.
	Blocked(ctx context.Context, addr string) (bool, error)
	AdminPendingByToken(ctx context.Context, token string) (*archive.AdminPending, error)

	// Tournaments (TournamentOfGame returns archive.ErrNotFound for a game
	// of no tournament).
	NewTournamentID(ctx context.Context) (int64, error)
	Tournament(ctx context.Context, id int64) (*archive.Tournament, error)
	TournamentOfGame(ctx context.Context, gameID int64) (*archive.Tournament, error)
	DueTournaments(ctx context.Context, now time.Time) ([]*archive.Tournament, error)

	// Private notes.
	Notes(ctx context.Context, gameID int64, addr string) ([]*archive.Note, error)

	// The analysis queue.
	QueuedAnalyses(ctx context.Context, limit int) ([]*archive.Analysis, error)
	AnalysesOf(ctx context.Context, addr string) ([]*archive.Analysis, error)

	// The text of a mail the referee sent, by Message-ID (an error
	// wrapping archive.ErrNotFound when unknown): the lines of a reply
	// that reproduce it are not the sender's.
	SentText(ctx context.Context, messageID string) (string, error)

	// Players' own addresses and those they added.
	MainAddress(ctx context.Context, addr string) (string, error)
	AddedAddresses(ctx context.Context, addr string) ([]string, error)
	AddressKnown(ctx context.Context, addr string) (bool, error)
	PendingAddress(ctx context.Context, code string, now time.Time) (*archive.AddressPending, error)
	PendingAddresses(ctx context.Context, player string, now time.Time) (int, error)

	// Daily digests and one-click unsubscriptions.
	DigestPlayers(ctx context.Context) ([]*archive.Player, error)
	Unsubscribed(ctx context.Context, addr, kind string) (bool, error)
}

var _ Store = (*archive.Store)(nil)

// Options configure a Referee. Address is required; every other zero field
// means its default.
type Options struct {
	// Address is the referee's own address, e.g. referee@pbem.example; its
	// Plus-addresses (referee+12.k7x9q@pbem.example) route replies to a.
	// Game.
	Address string
	// Name is the display name of the referee's mail (default "pbem
	// Referee").
	Name string
	// Lookup finds a game by id (default Lookup, the catalog); Games lists
	// The games for help (default Games).
	Lookup func(id string) (notation.Codec, error)
	Games  func() []notation.Codec
	// Clock is the time (default SystemClock).
	Clock Clock
	// Rand is the source of tokens and of first=random (default
	// Crypto/rand.Reader).
	Rand io.Reader
	// Site is the [Site] tag of the records (default "PBEM").
	Site string
	// DefaultDays per move (default 7); MaxDays the most days=N may ask
	// (default 60).
	DefaultDays, MaxDays int
	// RateLimit is how many messages without a valid token one sender may
	// Send per RateWindow (default 30 per hour); more are not read, and
	// only.
	// The first one over is answered, briefly. RateLimitTotal bounds such.
	// Messages from all senders together per RateWindow (default 600):.
	// Beyond it they are neither read nor answered. A message that
	// carries.
	// A player's or watcher's valid token counts against TokenRateLimit.
	// Instead.
	RateLimit, RateLimitTotal int
	RateWindow                time.Duration
	// TokenRateLimit is how many messages with a game's valid token one
	// Sender may send per RateWindow (default 120 per hour: far more than.
	// Play needs, but a bound on what one player, or a stranger who made.
	// A game with a bot, can make the referee do). Forged mail has no.
	// Token and cannot fill it. Over it, only the first is answered.
	TokenRateLimit int
	// InvitesPerMessage bounds the addresses one message invites to
	// Tournaments (default 20), InvitesPerWindow those one director.
	// Invites per RateWindow (default 50). InviteQuiet is how long an.
	// Address invited to a tournament, that has not joined one since, is.
	// Not invited again (default 30 days).
	InvitesPerMessage, InvitesPerWindow int
	InviteQuiet                         time.Duration
	// MaxBody is the largest message read, in bytes (default 1 MiB);
	// Bigger ones get a short refusal.
	MaxBody int
	// VacationDays is how many vacation days a player has per calendar
	// Year (default 30).
	VacationDays int
	// MaxObservers per game (default 50); MaxGames is how many invited or
	// Playing games one address may have (default 50).
	MaxObservers, MaxGames int
	// MaxBotGames is how many invited or playing games with a computer
	// Player one address may have started (default 5), MaxBotGamesTotal.
	// How many all addresses together (default 200).
	MaxBotGames, MaxBotGamesTotal int
	// Unauthenticated is what becomes of mail whose sender the mail
	// Server gave no verdict on (Request.Verdict ""):.
	// UnauthenticatedAnswer (the default) reads and answers it as any
	// Other, UnauthenticatedIgnore neither reads nor answers it. Mail.
	// With a failing verdict is never read nor answered.
	Unauthenticated string
	// WebBaseURL, when set, is where the game pages are served (e.g.
	// Https://pbem.example.org): every mail about a started game that is.
	// Not private links its page, WebBaseURL/g/ID.
	WebBaseURL string
	// TextMail sends every mail as plain text only; by default each also
	// Has an HTML part showing the board as a picture (html.go).
	TextMail bool
	// Admins are the addresses whose "admin ..." mail the referee reads
	// (admin.go): each command is carried out only once its admin answers
	// The token mailed to that address.
	Admins []string
	// Logger gets what the referee does (default: discard).
	Logger *slog.Logger
	// Secret keys the Message-IDs of the referee's mails and the marks
	// They carry (OwnMessageID), so that no one can predict the id of a.
	// Reply from the request's, nor make mail the referee takes for a.
	// Copy of its own: pbem passes the store's (archive.Store.Secret),
	// the.
	// Same for every instance and every restart. Default: random (from.
	// Crypto/rand, not Rand), good for this Referee only.
	Secret []byte
	// CalendarSecret keys the players' calendar keys (archive.CalendarKey),
	// Which the web checks with the same secret: pbem passes the store's.
	// Archive.CalendarSecretName. Default: random, good for this Referee.
	// Only.
	CalendarSecret []byte
	// UnsubscribeSecret keys the tokens of the List-Unsubscribe addresses
	// (archive.UnsubscribeToken), which the web checks with the same
	// Secret: pbem passes the store's archive.UnsubscribeSecretName.
	// Default: random, good for this Referee only.
	UnsubscribeSecret []byte
}

// Referee turns requests into stored game changes and replies. It is safe
// for concurrent use: concurrent requests on one game are serialised by the
// store's version checks (a conflicting request is processed again).
type Referee struct {
	store         Store
	opts          Options
	local, domain string
	log           *slog.Logger
	stats         counters
	// Busy counts the requests, bot moves and clock events being handled:.
	// Analyses wait while it is above zero (analyse.go).
	busy   atomic.Int64
	admins atomic.Pointer[[]string] // SetAdmins, else opts.Admins
}

type counters struct {
	handled, ignored, duplicates, limited, panics, conflicts, queued, unprocessable, unverified, conditional atomic.Int64
}

// Values of [Options].Unauthenticated.
const (
	UnauthenticatedAnswer = "answer"
	UnauthenticatedIgnore = "ignore"
)

// Stats are counts of what the referee did since it was made.
type Stats struct {
	Handled    int64 // requests committed (answered or not)
	Ignored    int64 // bounces, auto-replies, loops
	Duplicates int64 // requests already processed
	Limited    int64 // requests over the rate limit
	Panics     int64 // bugs recovered ("internal error, nothing applied")
	Conflicts  int64 // commits retried after a concurrent change
	Queued     int64 // replies committed to the outbox
	// Unprocessable counts messages that failed for a reason of their
	// Own: answered "could not be processed", nothing applied.
	Unprocessable int64
	// Unverified counts messages not read because of their sender
	// Verdict (failed, or none when such mail is ignored); they count.
	// In Ignored too.
	Unverified int64
	// Conditional counts the conditional answers played (in commits
	// That may be retried, so an upper bound).
	Conditional int64
}

// Stats returns the counters.
func (r *Referee) Stats() Stats {
	c := &r.stats
	return Stats{c.handled.Load(), c.ignored.Load(), c.duplicates.Load(), c.limited.Load(), c.panics.Load(), c.conflicts.Load(), c.queued.Load(), c.unprocessable.Load(), c.unverified.Load(), c.conditional.Load()}
}

// New makes a referee on a store. It does no I/O.
func New(store Store, opts *Options) (*Referee, error) {
	if store == nil {
		return nil, errors.New("referee: no store")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	local, domain, ok := strings.Cut(normAddr(o.Address), "@")
	if !ok || local == "" || domain == "" || strings.Contains(local, "+") {
		return nil, fmt.Errorf("referee: bad referee address %q; expected one such as referee@example.org", o.Address)
	}
	if o.Name == "" {
		o.Name = "pbem referee"
	}
	switch o.Unauthenticated {
	case "":
		o.Unauthenticated = UnauthenticatedAnswer
	case UnauthenticatedAnswer, UnauthenticatedIgnore:
	default:
		return nil, fmt.Errorf("referee: unauthenticated %q: expected %q or %q", o.Unauthenticated, UnauthenticatedAnswer, UnauthenticatedIgnore)
	}
	if o.Lookup == nil {
		o.Lookup = Lookup
	}
	if o.Games == nil {
		o.Games = Games
	}
	if o.Clock == nil {
		o.Clock = SystemClock{}
	}
	if o.Rand == nil {
		o.Rand = rand.Reader
	}
	if o.Site == "" {
		o.Site = "PBEM"
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.DefaultDays, 7)
	def(&o.MaxDays, 60)
	def(&o.RateLimit, 30)
	def(&o.RateLimitTotal, 600)
	def(&o.TokenRateLimit, 120)
	def(&o.MaxBody, 1<<20)
	def(&o.VacationDays, 30)
	def(&o.MaxObservers, 50)
	def(&o.MaxGames, 50)
	def(&o.MaxBotGames, 5)
	def(&o.MaxBotGamesTotal, 200)
	if o.RateWindow <= 0 {
		o.RateWindow = time.Hour
	}
	def(&o.InvitesPerMessage, 20)
	def(&o.InvitesPerWindow, 50)
	if o.InviteQuiet <= 0 {
		o.InviteQuiet = 30 * 24 * time.Hour
	}
	if len(o.Secret) == 0 {
		o.Secret = make([]byte, 32)
		if _, err := rand.Read(o.Secret); err != nil {
			return nil, fmt.Errorf("referee: a secret for Message-IDs: %w", err)
		}
	}
	if len(o.CalendarSecret) == 0 {
		o.CalendarSecret = make([]byte, 32)
		if _, err := rand.Read(o.CalendarSecret); err != nil {
			return nil, fmt.Errorf("referee: a secret for calendar keys: %w", err)
		}
	}
	if len(o.UnsubscribeSecret) == 0 {
		o.UnsubscribeSecret = make([]byte, 32)
		if _, err := rand.Read(o.UnsubscribeSecret); err != nil {
			return nil, fmt.Errorf("referee: a secret for unsubscribe tokens: %w", err)
		}
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Referee{store: store, opts: o, local: local, domain: domain, log: log}, nil
}

// SecretName is the name of the store's secret (archive.Store.Secret)
// that pbem passes as [Options].Secret.
const SecretName = "referee"

// mark is the mark of a Message-ID's base (the part before its last dot):
// a digest of it keyed with the referee's secret.
func (r *Referee) mark(base string) string {
	h := hmac.New(sha256.New, r.opts.Secret)
	h.Write([]byte("copy\x00" + base))
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// MarkedMessageID returns the Message-ID base.MARK@domain: base (such as
// pbem.12.HASH) with its mark, at the referee's domain.
func (r *Referee) MarkedMessageID(base string) string {
	return base + "." + r.mark(base) + "@" + r.domain
}

// OwnMessageID reports whether id (without angle brackets) is a Message-ID
// of a mail this referee wrote, or another with the same secret: one at its
// domain whose local part ends in the mark only the secret makes. Mail
// that carries such an id and the referee's address as From is a copy of
// its own reply (smtp.copies), and only such mail is.
func (r *Referee) OwnMessageID(id string) bool {
	local, domain, ok := strings.Cut(strings.Trim(id, "<>"), "@")
	if !ok || !strings.EqualFold(domain, r.domain) {
		return false
	}
	i := strings.LastIndexByte(local, '.')
	if i < 0 {
		return false
	}
	return hmac.Equal([]byte(local[i+1:]), []byte(r.mark(local[:i])))
}

// Address is the referee's own address.
func (r *Referee) Address() Address {
	return Address{Name: r.opts.Name, Addr: r.local + "@" + r.domain}
}

// maxAttempts bounds the retries of a request whose commit conflicts.
const maxAttempts = 5

// Handle processes one inbound message: it reads what it needs from the
// store, decides, and commits the whole effect — game changes, the replies
// (queued in the outbox) and the message id (processed) — in one
// transaction. A message already processed does nothing. Bounces and
// auto-replies are recorded as processed and not answered. A player's
// mistake is answered, not returned; so is a message that fails for a
// reason of its own ("could not be processed", nothing applied). An error
// means the store failed and nothing was stored: retry later; but a
// *PermanentError means the message can never be processed.
func (r *Referee) Handle(ctx context.Context, req Request) error {
	r.busy.Add(1)
	defer r.busy.Add(-1)
	ch, err := r.handle(ctx, r.store, req)
	if ch != nil {
		r.stats.handled.Add(1)
		r.stats.queued.Add(int64(len(ch.Outbox)))
	}
	return err
}

// handle processes req against st and commits its change there, retrying
// after a conflict. It returns the change committed, nil for a message
// already processed.
func (r *Referee) handle(ctx context.Context, st Store, req Request) (*archive.Change, error) {
	key := req.key()
	var last error
	for range maxAttempts {
		seen, err := st.Seen(ctx, key)
		if err != nil {
			return nil, fmt.Errorf("referee: %w", err)
		}
		if seen {
			r.stats.duplicates.Add(1)
			r.log.Info("duplicate message ignored", "message", key)
			return nil, nil
		}
		ch, err := r.process(ctx, st, &req, key)
		if err == nil {
			err = st.Commit(ctx, ch)
		}
		switch {
		case err == nil:
			return ch, nil
		case errors.Is(err, archive.ErrDuplicate):
			r.stats.duplicates.Add(1)
			return nil, nil
		case errors.Is(err, archive.ErrConflict):
			r.stats.conflicts.Add(1)
			last = err
			continue
		case ownFault(err):
			return r.unprocessable(ctx, st, &req, key, err)
		}
		return nil, fmt.Errorf("referee: %s: %w", key, err)
	}
	return nil, fmt.Errorf("referee: %s: %d attempts conflicted: %w", key, maxAttempts, last)
}

// brokenError is an error of the message's own: processing it again
// would fail the same way (a tournament whose standings cannot be
// computed, a change the store refuses as it is). Such a message is
// answered once, "could not be processed", with nothing of it applied
// (see unprocessable), never retried.
type brokenError struct{ err error }

func (e *brokenError) Error() string { return e.err.Error() }
func (e *brokenError) Unwrap() error { return e.err }

// broken marks err as an error of the message's own.
func broken(err error) error {
	if err == nil {
		return nil
	}
	return &brokenError{err}
}

// ownFault reports whether err is the message's own fault (retrying it
// fails the same way), as opposed to a failure of the store (busy, down,
// a full disk), after which the message is tried again.
func ownFault(err error) bool {
	var b *brokenError
	return errors.As(err, &b) || errors.Is(err, archive.ErrInvalidChange)
}

// PermanentError is what Handle returns for a message that can never be
// processed and could not even be answered so: retrying it fails the same
// way. Its Permanent method reports true, which is how the mail poller
// knows to set such a message aside instead of retrying it.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string   { return e.Err.Error() }
func (e *PermanentError) Unwrap() error   { return e.Err }
func (e *PermanentError) Permanent() bool { return true }

// unprocessable commits, for a message that failed for a reason of its
// own (cause), only its id and one reply: it could not be processed and
// nothing of it was applied. Like any mail without a token's proof, the
// reply counts against the limits of unauthenticated mail. If even that
// cannot be committed for a reason of its own, the error is a
// *PermanentError; a failure of the store stays temporary.
func (r *Referee) unprocessable(ctx context.Context, st Store, req *Request, key string, cause error) (*archive.Change, error) {
	r.stats.unprocessable.Add(1)
	r.log.Error("message could not be processed: answered, nothing applied", "message", key, "err", cause)
	resetDirect(req)
	s := r.newSession(ctx, req, key)
	s.store = st
	ch := &archive.Change{MessageID: key, At: s.now}
	if r.automatic(req) == "" && validAddr(req.From.Addr) {
		ok, err := s.rateLimit()
		if err != nil {
			return nil, fmt.Errorf("referee: %s: %w", key, err)
		}
		if ok {
			s.mine.label = "not processed"
			s.mine.add("Sorry: your message could not be processed, and nothing of it was applied. The referee's operator has been told (the log keeps the reason); sending it again would fail the same way.")
		}
		ch.Senders = s.senders
		if !s.answerDirect(s.mine) && s.mine != nil && len(s.mine.paras) > 0 {
			ch.Outbox = append(ch.Outbox, s.compose(s.mine))
		}
	}
	err := st.Commit(ctx, ch)
	switch {
	case err == nil:
		return ch, nil
	case errors.Is(err, archive.ErrDuplicate):
		r.stats.duplicates.Add(1)
		return nil, nil
	case ownFault(err):
		return nil, &PermanentError{fmt.Errorf("referee: %s: %w (answering it: %w)", key, cause, err)}
	}
	return nil, fmt.Errorf("referee: %s: %w", key, err)
}

// process decides what a request changes, reading st. A panic (a bug) is
// recovered: the change is then only the message id and an "internal
// error" reply.
func (r *Referee) process(ctx context.Context, st Store, req *Request, key string) (ch *archive.Change, err error) {
	resetDirect(req)
	s := r.newSession(ctx, req, key)
	s.store = st
	defer func() {
		if p := recover(); p != nil {
			r.stats.panics.Add(1)
			r.log.Error("panic handling a message", "message", key, "panic", p, "stack", string(debug.Stack()))
			ch, err = r.internalError(req, key, s.now), nil
		}
	}()
	// Mail from a blocked sender is dropped unanswered; an admin's
	// Command is the admin's (admin.go).
	if blocked, err := r.blockedSender(ctx, st, req); err != nil || blocked {
		if blocked {
			r.stats.ignored.Add(1)
			r.log.Info("blocked sender: dropped unanswered", "message", key, "from", req.From.Addr)
			return &archive.Change{MessageID: key, At: s.now}, nil
		}
		return nil, err
	}
	if ch, ok, err := s.adminMail(); ok || err != nil {
		return ch, err
	}
	if err := s.run(); err != nil {
		return nil, err
	}
	if err := s.playConditions(); err != nil {
		return nil, err
	}
	if err := s.tournamentResults(); err != nil {
		return nil, err
	}
	return s.change(), nil
}

// internalError is the change after a bug: the message is marked processed
// and its sender told that nothing was applied.
func (r *Referee) internalError(req *Request, key string, now time.Time) *archive.Change {
	s := r.newSession(context.Background(), req, key)
	s.now = now
	ch := &archive.Change{MessageID: key, At: now}
	if r.automatic(req) != "" {
		return ch
	}
	s.mine.add("Sorry: an internal error stopped the referee while it read your message. Nothing of it was applied. The error has been logged; please try again later.")
	s.mine.label = "internal error"
	if !s.answerDirect(s.mine) {
		ch.Outbox = append(ch.Outbox, s.compose(s.mine))
	}
	return ch
}

// now is the time a request counts as made: its arrival, unless that is
// after the clock (or unknown).
func (r *Referee) now(req *Request) time.Time {
	now := r.opts.Clock.Now().UTC()
	if req != nil && !req.Received.IsZero() && req.Received.Before(now) {
		return req.Received.UTC()
	}
	return now
}

func readFull(r io.Reader, b []byte) (int, error) { return io.ReadFull(r, b) }
