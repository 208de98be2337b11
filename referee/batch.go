package referee

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"pbem/archive"
)

// HandleBatch processes several inbound messages, in order, and commits
// their effects in one transaction (one sync to disk, Store.CommitBatch):
// each request is decided against the store as the requests
// before it in the batch left it, so two moves in one game see each other.
// It returns one error per request, with Handle's meaning: nil once the
// request's effect is durably committed (or it was a duplicate). If the
// batch cannot be committed as a whole (a game changed meanwhile by another
// writer, a message processed meanwhile), every request of it is handled
// again on its own, as Handle does. A batch of one is handled by Handle.
func (r *Referee) HandleBatch(ctx context.Context, reqs []Request) []error {
	r.busy.Add(1)
	defer r.busy.Add(-1)
	errs := make([]error, len(reqs))
	if len(reqs) == 1 {
		errs[0] = r.Handle(ctx, reqs[0])
		return errs
	}
	v := r.newView()
	v.prefetch(ctx, reqs)
	var members []int // requests whose changes v holds
	flush := func() {
		if len(v.changes) > 0 {
			if err := r.store.CommitBatch(ctx, v.changes); err != nil {
				r.log.Info("batch not committed; handling its messages one by one", "messages", len(members), "err", err)
				for _, i := range members {
					errs[i] = r.Handle(ctx, reqs[i])
				}
			} else {
				r.stats.handled.Add(int64(len(v.changes)))
				for _, ch := range v.changes {
					r.stats.queued.Add(int64(len(ch.Outbox)))
				}
			}
		}
		v = r.newView()
		members = nil
	}
	for i := range reqs {
		if ctx.Err() != nil {
			errs[i] = fmt.Errorf("referee: %w", ctx.Err())
			continue
		}
		if v.addresses {
			flush()
		}
		ch, err := r.handle(ctx, v.store(), reqs[i])
		if errors.Is(err, errFlush) {
			// The request reads what the batch changed and the view
			// cannot show (a tournament): commit the batch first.
			flush()
			ch, err = r.handle(ctx, v.store(), reqs[i])
		}
		errs[i] = err
		if ch != nil {
			members = append(members, i)
		}
	}
	flush()
	return errs
}

// prefetch reads the keys of reqs at once into v (Store.Prefetch). The reads are as of now: a change committed by another
// batch before this one commits makes the commit's checks fail (a
// processed Message-ID, a version), and the requests are then handled one
// by one, on fresh reads. When it fails, v reads the store request by
// request.
func (v *view) prefetch(ctx context.Context, reqs []Request) {
	ps := v.Store
	ids := make([]string, 0, len(reqs))
	addrs := make([]string, 0, len(reqs))
	windows := []string{allSenders} // the rate limit's window of all senders
	for i := range reqs {
		ids = append(ids, reqs[i].key())
		if a := reqs[i].From.Addr; a != "" {
			addrs = append(addrs, a)
			windows = append(windows, tokenWindow+a)
		}
	}
	p, err := ps.Prefetch(ctx, ids, addrs, windows)
	if err != nil {
		return
	}
	v.pre = p
	v.preGames = map[int64]*archive.Game{}
	for _, gs := range p.Active {
		for _, g := range gs {
			v.preGames[g.ID] = g
		}
	}
}

// Blocked answers from the prefetch for a sender it holds: the batch is
// committed before any request after an operator's change (errFlush), so
// the prefetch is as current as the store for this batch.
func (v *view) Blocked(ctx context.Context, addr string) (bool, error) {
	if v.pre != nil {
		if b, ok := v.pre.Blocked[strings.ToLower(strings.TrimSpace(addr))]; ok {
			return b, nil
		}
	}
	return v.Store.Blocked(ctx, addr)
}

// MainAddress answers from the prefetch for a sender it holds: a batch
// that changes addresses is committed before the next request.
func (v *view) MainAddress(ctx context.Context, addr string) (string, error) {
	if v.pre != nil {
		if m, ok := v.pre.Main[strings.ToLower(strings.TrimSpace(addr))]; ok {
			return m, nil
		}
	}
	return v.Store.MainAddress(ctx, addr)
}

// errFlush is returned by a batch view for a read it cannot answer from the
// store and the batch's changes together.
var errFlush = errors.New("referee: the batch must be committed first")

// view is the store as a batch of changes not yet committed leaves it: its
// reads return the games, players and rate-limit windows the batch changed
// (with the versions they will have), and its Commit adds a change to the
// batch after the same duplicate and version checks the store makes.
// Tournaments are read from the store, unless the batch changed one
// (errFlush).
type view struct {
	Store   // the store, for what the batch does not change
	changes []*archive.Change
	seen    map[string]bool
	games   map[int64]*archive.Game
	players map[string]*archive.Player
	senders map[string]*archive.Sender
	tours   bool // a change of the batch changes tournaments
	// addresses: a change of the batch changes players' addresses, which
	// the requests after it read from the store (address.go): the batch is
	// committed before the next request.
	addresses bool
	// pre, when not nil, is the store as read before the batch was
	// decided (prefetch), answering for the keys it holds; preGames are
	// its active games by id. The batch's own changes (above) come first.
	// A view made after a commit has none: pre would not show it.
	pre      *archive.Prefetched
	preGames map[int64]*archive.Game
}

func (r *Referee) newView() *view {
	return &view{Store: r.store, seen: map[string]bool{}, games: map[int64]*archive.Game{},
		players: map[string]*archive.Player{}, senders: map[string]*archive.Sender{}}
}

// store is v as the session's store: with the tournament capability when
// the store has it.
func (v *view) store() Store {
	return tview{v}
}

func (v *view) Seen(ctx context.Context, messageID string) (bool, error) {
	if v.seen[messageID] {
		return true, nil
	}
	if v.pre != nil {
		if seen, ok := v.pre.Seen[messageID]; ok {
			return seen, nil
		}
	}
	return v.Store.Seen(ctx, messageID)
}

func (v *view) Game(ctx context.Context, id int64) (*archive.Game, error) {
	if g, ok := v.games[id]; ok {
		return cloneGame(g), nil
	}
	if g, ok := v.preGames[id]; ok {
		return cloneGame(g), nil
	}
	return v.Store.Game(ctx, id)
}

// ActiveGamesOf is the store's answer with the games the batch changed as
// the batch left them (added, replaced or dropped).
func (v *view) ActiveGamesOf(ctx context.Context, addr string) ([]*archive.Game, error) {
	a := strings.ToLower(addr)
	var gs []*archive.Game
	if pgs, ok := v.preActive(a); ok {
		for _, g := range pgs {
			gs = append(gs, cloneGame(g))
		}
	} else {
		var err error
		if gs, err = v.Store.ActiveGamesOf(ctx, addr); err != nil {
			return nil, err
		}
	}
	out := gs[:0]
	for _, g := range gs {
		if _, ok := v.games[g.ID]; !ok {
			out = append(out, g)
		}
	}
	for _, g := range v.games {
		if archive.Active(g.Status) && involves(g, a) {
			out = append(out, cloneGame(g))
		}
	}
	slices.SortFunc(out, func(x, y *archive.Game) int { return int(x.ID - y.ID) })
	return out, nil
}

func (v *view) DueGames(ctx context.Context, now time.Time) ([]*archive.Game, error) {
	if len(v.games) > 0 {
		return nil, errFlush
	}
	return v.Store.DueGames(ctx, now)
}

func (v *view) Player(ctx context.Context, addr string) (*archive.Player, error) {
	if p, ok := v.players[strings.ToLower(addr)]; ok {
		c := *p
		return &c, nil
	}
	if v.pre != nil {
		if p, ok := v.pre.Players[strings.ToLower(addr)]; ok {
			c := *p
			return &c, nil
		}
		if p, ok := v.pre.People[strings.ToLower(addr)]; ok {
			c := *p
			return &c, nil
		}
	}
	return v.Store.Player(ctx, addr)
}

func (v *view) Sender(ctx context.Context, addr string) (*archive.Sender, error) {
	if s, ok := v.senders[strings.ToLower(addr)]; ok {
		c := *s
		return &c, nil
	}
	if v.pre != nil {
		if s, ok := v.pre.Senders[strings.ToLower(addr)]; ok {
			c := *s
			return &c, nil
		}
	}
	return v.Store.Sender(ctx, addr)
}

// Commit adds c to the batch. Like the store, it refuses a message already
// processed (in the batch) and a game or player whose Version is not the
// one the batch left; a version the batch did not change is checked when
// the batch is committed.
func (v *view) Commit(ctx context.Context, c *archive.Change) error {
	if c.MessageID != "" && v.seen[c.MessageID] {
		return archive.ErrDuplicate
	}
	for _, g := range c.Games {
		if b, ok := v.games[g.ID]; ok && b.Version != g.Version {
			return fmt.Errorf("%w: game %d", archive.ErrConflict, g.ID)
		}
	}
	for _, p := range c.Players {
		if b, ok := v.players[strings.ToLower(p.Address.Addr)]; ok && b.Version != p.Version {
			return fmt.Errorf("%w: player %s", archive.ErrConflict, p.Address.Addr)
		}
	}
	if c.MessageID != "" {
		v.seen[c.MessageID] = true
	}
	for _, g := range c.Games {
		b := cloneGame(g)
		b.Committed(c.At)
		v.games[g.ID] = b
	}
	for _, p := range c.Players {
		b := *p
		b.Committed()
		b.Address.Addr = strings.ToLower(b.Address.Addr)
		v.players[b.Address.Addr] = &b
	}
	for _, s := range c.Senders {
		b := *s
		b.Addr = strings.ToLower(b.Addr)
		v.senders[b.Addr] = &b
	}
	if len(c.Tournaments) > 0 {
		v.tours = true
	}
	if c.Addresses != nil {
		v.addresses = true
	}
	v.changes = append(v.changes, c)
	return nil
}

// Notes are the store's notes of addr on a game and those the batch's
// changes wrote.
func (v *view) Notes(ctx context.Context, gameID int64, addr string) ([]*archive.Note, error) {
	var out []*archive.Note
	var ok bool
	if v.pre != nil {
		out, ok = v.pre.NotesOf(gameID, addr)
	}
	if !ok {
		var err error
		if out, err = v.Store.Notes(ctx, gameID, addr); err != nil {
			return nil, err
		}
	}
	for _, c := range v.changes {
		for _, n := range c.Notes {
			if n.GameID == gameID && normAddr(n.Addr) == normAddr(addr) {
				out = append(out, n)
			}
		}
	}
	return out, nil
}

// QueuedAnalyses are the store's, with those the batch's changes queued
// after them.
func (v *view) QueuedAnalyses(ctx context.Context, limit int) ([]*archive.Analysis, error) {
	out, err := v.Store.QueuedAnalyses(ctx, limit)
	if err != nil {
		return nil, err
	}
	for _, c := range v.changes {
		for _, a := range c.Analyses {
			if a.Status == archive.AnalysisQueued && len(out) < limit {
				out = append(out, a)
			}
		}
	}
	return out, nil
}

// AnalysesOf is the store's answer.
func (v *view) AnalysesOf(ctx context.Context, addr string) ([]*archive.Analysis, error) {
	return v.Store.AnalysesOf(ctx, addr)
}

// tview is a view of a store with tournaments.
type tview struct{ *view }

func (t tview) ts() Store { return t.view.Store }

func (t tview) NewTournamentID(ctx context.Context) (int64, error) {
	return t.ts().NewTournamentID(ctx)
}

func (t tview) Tournament(ctx context.Context, id int64) (*archive.Tournament, error) {
	if t.tours {
		return nil, errFlush
	}
	return t.ts().Tournament(ctx, id)
}

func (t tview) TournamentOfGame(ctx context.Context, gameID int64) (*archive.Tournament, error) {
	if t.tours {
		return nil, errFlush
	}
	return t.ts().TournamentOfGame(ctx, gameID)
}

func (t tview) DueTournaments(ctx context.Context, now time.Time) ([]*archive.Tournament, error) {
	if t.tours {
		return nil, errFlush
	}
	return t.ts().DueTournaments(ctx, now)
}

// involves reports whether addr (lower case) has a seat in g or watches it.
func involves(g *archive.Game, addr string) bool {
	for _, s := range g.Seats {
		if strings.ToLower(s.Player.Addr) == addr {
			return true
		}
	}
	for _, o := range g.Observers {
		if strings.ToLower(o.Addr) == addr {
			return true
		}
	}
	return false
}

// cloneGame copies g deeply enough that changing the copy (seats,
// observers, offers) leaves g as it was.
func cloneGame(g *archive.Game) *archive.Game {
	c := *g
	c.Seats = slices.Clone(g.Seats)
	c.Observers = slices.Clone(g.Observers)
	c.Offers = slices.Clone(g.Offers)
	for i := range c.Offers {
		c.Offers[i].Accepted = slices.Clone(c.Offers[i].Accepted)
	}
	c.Conditions = slices.Clone(g.Conditions)
	for i := range c.Conditions {
		c.Conditions[i].Lines = slices.Clone(c.Conditions[i].Lines)
	}
	return &c
}

// preActive is the prefetched active games of addr (lower case), and
// whether the prefetch read them.
func (v *view) preActive(addr string) ([]*archive.Game, bool) {
	if v.pre == nil {
		return nil, false
	}
	gs, ok := v.pre.Active[addr]
	return gs, ok
}
