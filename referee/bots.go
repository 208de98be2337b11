package referee

import (
	"context"
	"errors"
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

// Computer players. A seat of a game may be held by the referee's own
// player (new castles with bot, or bot:N for level N): its address is a
// pseudo-address in BotDomain, which no mail is sent to or read from. The
// referee does not search for moves itself (that takes a core for up to
// seconds): a worker outside the mail path asks BotTurns what to play,
// searches, and plays the move through PlayBot, which applies, archives and
// answers it exactly as a person's move.

// BotDomain is the domain of bot seats' pseudo-addresses (RFC 2606:
// .invalid never resolves, so nothing can be mailed there).
const BotDomain = "bot.pbem.invalid"

// Bot levels: 0 is a uniform random mover, 1 to MaxBotLevel search with
// growing budgets; DefaultBotLevel is the level of a plain "bot".
const (
	MaxBotLevel     = 5
	DefaultBotLevel = 3
)

// BotName is how records and mails name a bot seat: "pbem bot (level 3)".
func BotName(level int) string { return fmt.Sprintf("pbem bot (level %d)", level) }

// botAddress is the pseudo-address of the n-th bot of a level in a game
// (n from 1), so that two bots of one level hold distinct seats.
func botAddress(level, n int) string {
	if n <= 1 {
		return fmt.Sprintf("level%d@%s", level, BotDomain)
	}
	return fmt.Sprintf("level%d-%d@%s", level, n, BotDomain)
}

// BotLevel reports whether addr is a bot seat's address and its level.
func BotLevel(addr string) (level int, ok bool) {
	local, domain, found := strings.Cut(normAddr(addr), "@")
	if !found || domain != BotDomain || !strings.HasPrefix(local, "level") {
		return 0, false
	}
	digits, _, _ := strings.Cut(strings.TrimPrefix(local, "level"), "-")
	n, err := strconv.Atoi(digits)
	if err != nil || n < 0 || n > MaxBotLevel {
		return 0, false
	}
	return n, true
}

// parseBot reads "bot" or "bot:N" in the player list of new.
func parseBot(arg string) (level int, ok bool, err error) {
	a := strings.ToLower(arg)
	if a == "bot" {
		return DefaultBotLevel, true, nil
	}
	rest, found := strings.CutPrefix(a, "bot:")
	if !found {
		return 0, false, nil
	}
	n, perr := strconv.Atoi(rest)
	if perr != nil || n < 0 || n > MaxBotLevel {
		return 0, true, fmt.Errorf("%q names no bot level; expected bot or bot:N with N from 0 to %d", arg, MaxBotLevel)
	}
	return n, true, nil
}

// hasBot reports whether a bot holds a seat of g.
func hasBot(g *archive.Game) bool {
	return slices.ContainsFunc(g.Seats, func(st archive.Seat) bool {
		_, bot := BotLevel(st.Player.Addr)
		return bot
	})
}

// botOwner is the address that started g: its inviter, or for a game
// made before inviters were kept, its first seat held by a person.
func botOwner(g *archive.Game) string {
	if g.Options.Inviter != "" {
		return normAddr(g.Options.Inviter)
	}
	for _, st := range g.Seats {
		if _, bot := BotLevel(st.Player.Addr); !bot {
			return normAddr(st.Player.Addr)
		}
	}
	return ""
}

// botLimits refuses a new game with a bot (among people) when the sender
// has started Options.MaxBotGames invited or playing games with bots, or
// all senders together Options.MaxBotGamesTotal: each bot ply takes a core
// for up to seconds, and one worker plays them all.
func (s *session) botLimits(people []Address) error {
	if !slices.ContainsFunc(people, func(p Address) bool { _, bot := BotLevel(p.Addr); return bot }) {
		return nil
	}
	mine, err := s.activeGames()
	if err != nil {
		return err
	}
	n := 0
	for _, ag := range mine {
		if hasBot(ag) && botOwner(ag) == s.from.Addr {
			n++
		}
	}
	if limit := s.r.opts.MaxBotGames; n >= limit {
		return mistake(nil, "", "you started %s with the referee's computer player that are under way or invited, as many as one address may (%d): finish, resign or decline one of them first, or invite a person", english.Plural(n, "game"), limit)
	}
	all := map[int64]bool{}
	for level := 0; level <= MaxBotLevel; level++ {
		gs, err := s.store.ActiveGamesOf(s.ctx, botAddress(level, 1))
		if err != nil {
			return err
		}
		for _, ag := range gs {
			all[ag.ID] = archive.Active(ag.Status)
		}
	}
	for id, g := range s.games { // as this message changed them
		all[id] = hasBot(g.Game) && archive.Active(g.Status)
	}
	total := 0
	for _, active := range all {
		if active {
			total++
		}
	}
	if limit := s.r.opts.MaxBotGamesTotal; total >= limit {
		return mistake(nil, "", "the referee's computer player is in %s under way or invited, as many as it plays at once (%d): try again when some have ended, or invite a person", english.Plural(total, "game"), limit)
	}
	return nil
}

// BotTurn is a turn a bot has to play: the game, the ply it plays, its seat
// and level, and the game so far (with its history, for repetition).
type BotTurn struct {
	Game  int64
	Ply   int
	Seat  int
	Level int
	Line  *engine.Line
	Codec notation.Codec
	// Owner is the address that started the game: a worker takes turns
	// round robin across owners, so that nobody's bot waits behind
	// another's many games.
	Owner string
	// Since is when the bot's turn began.
	Since time.Time
}

// BotTurns lists the games under way in which a bot is to move.
func (r *Referee) BotTurns(ctx context.Context) ([]BotTurn, error) {
	var out []BotTurn
	seen := map[int64]bool{}
	for level := 0; level <= MaxBotLevel; level++ {
		// The first bot of a level is a seat of every game with such a
		// bot; further bots of the level share its games.
		gs, err := r.store.ActiveGamesOf(ctx, botAddress(level, 1))
		if err != nil {
			return nil, fmt.Errorf("referee: bot turns: %w", err)
		}
		for _, ag := range gs {
			if seen[ag.ID] || ag.Status != archive.Playing {
				continue
			}
			seen[ag.ID] = true
			g, err := r.open(ag)
			if err != nil {
				var ue *userError
				if errors.As(err, &ue) {
					continue // a game this referee cannot play now
				}
				return nil, err
			}
			if g.line().Outcome().Over {
				continue
			}
			seat := g.mover()
			if lv, ok := BotLevel(g.Seats[seat].Player.Addr); ok {
				out = append(out, BotTurn{Game: g.ID, Ply: g.plies() + 1, Seat: seat, Level: lv, Line: g.line(), Codec: g.codec,
					Owner: botOwner(g.Game), Since: g.TurnStart})
			}
		}
	}
	return out, nil
}

// PlayBot plays text as ply number ply of game id for the bot that is to
// move there, through the same path as a person's move: the others are
// told, the game is archived when it ends. It is idempotent: the ply is
// applied once however often it is sent. It refuses to move for a seat
// that is not a bot's, so a bot never plays a person's turn.
func (r *Referee) PlayBot(ctx context.Context, id int64, ply int, text string) error {
	r.busy.Add(1)
	defer r.busy.Add(-1)
	key := fmt.Sprintf("bot:%d:%d", id, ply)
	var last error
	for range maxAttempts {
		seen, err := r.store.Seen(ctx, key)
		if err != nil {
			return fmt.Errorf("referee: %w", err)
		}
		if seen {
			r.stats.duplicates.Add(1)
			return nil
		}
		ch, err := r.botChange(ctx, key, id, ply, text)
		if err != nil {
			return err
		}
		err = r.store.Commit(ctx, ch)
		switch {
		case err == nil:
			r.stats.handled.Add(1)
			r.stats.queued.Add(int64(len(ch.Outbox)))
			return nil
		case errors.Is(err, archive.ErrDuplicate):
			r.stats.duplicates.Add(1)
			return nil
		case errors.Is(err, archive.ErrConflict):
			r.stats.conflicts.Add(1)
			last = err
			continue
		}
		return fmt.Errorf("referee: %s: %w", key, err)
	}
	return fmt.Errorf("referee: %s: %d attempts conflicted: %w", key, maxAttempts, last)
}

// ErrNotBotsTurn is returned by PlayBot when the game is not waiting for a
// bot's ply number ply.
var ErrNotBotsTurn = errors.New("referee: not a bot's turn")

func (r *Referee) botChange(ctx context.Context, key string, id int64, ply int, text string) (*archive.Change, error) {
	s := r.newSession(ctx, nil, key)
	ag, err := r.store.Game(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("referee: bot ply %s: %w", key, err)
	}
	g, err := s.adopt(ag)
	if err != nil {
		return nil, fmt.Errorf("referee: bot ply %s: %w", key, err)
	}
	if g.Status != archive.Playing || g.plies()+1 != ply {
		return nil, fmt.Errorf("%w: game %d is %s at ply %d", ErrNotBotsTurn, id, g.Status, g.plies()+1)
	}
	seat := g.mover()
	level, ok := BotLevel(g.Seats[seat].Player.Addr)
	if !ok {
		return nil, fmt.Errorf("%w: game %d, ply %d is %s's", ErrNotBotsTurn, id, ply, g.who(seat))
	}
	s.from = Address{Name: BotName(level), Addr: g.Seats[seat].Player.Addr}
	s.bot = true
	s.mine = &draft{to: s.from, seat: seat, kind: "reply"}
	if err := s.move(g, text, ply, false); err != nil {
		var ue *userError
		if errors.As(err, &ue) {
			// The worker's move was refused: a bug in the bot or a
			// codec. Nothing is applied; the worker logs it.
			return nil, fmt.Errorf("referee: bot ply %s %q refused: %s", key, text, ue.reason)
		}
		return nil, err
	}
	if err := s.playConditions(); err != nil {
		return nil, err
	}
	ch := s.change()
	ch.MessageID = key
	return ch, nil
}
