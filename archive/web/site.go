package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"pbem/archive"
)

// SiteOptions select what a static site holds. The zero value writes
// every game.
type SiteOptions struct {
	// Events keep the archived games of these events only (Event tag,
	// case-insensitive); Games the games of these game ids only.
	Events []string
	Games  []string
	// Plies writes a page per ply of every game, as the server has; by
	// default a game has one page (its last position) and its move list
	// shows the plies without links, which keeps a site of many games to
	// one file per game and its record.
	Plies bool
	// Progress, when set, is called after each game is written.
	Progress func(done int)
}

// SiteStats counts what WriteSite wrote.
type SiteStats struct {
	Games, Pages, Bytes int
}

// WriteSite writes the pages of the site as static files under dir, with
// relative links, for any static host: the front page, the archive list,
// every selected game (a page per ply and the record), the crosstable of
// every event, the ratings and the player pages. Private games are left
// out.
func (s *Server) WriteSite(ctx context.Context, dir string, o *SiteOptions) (SiteStats, error) {
	var so SiteOptions
	if o != nil {
		so = *o
	}
	w := &siteWriter{s: s, dir: dir, o: so, events: map[string]bool{}, players: map[string]bool{}, games: map[string]bool{}}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return w.stats, fmt.Errorf("web: site: %w", err)
	}
	// The games: archived ones first, then the referee's active games.
	filters := []archive.Filter{{}}
	if len(so.Events) > 0 || len(so.Games) > 0 {
		filters = nil
		events := so.Events
		if len(events) == 0 {
			events = []string{""}
		}
		games := so.Games
		if len(games) == 0 {
			games = []string{""}
		}
		for _, e := range events {
			for _, g := range games {
				filters = append(filters, archive.Filter{Event: e, Game: g})
			}
		}
	}
	jobs := make(chan *game, 64)
	errc := make(chan error, 1)
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var done int
	var mu sync.Mutex
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range jobs {
				if err := w.game(ctx, g); err != nil {
					select {
					case errc <- err:
					default:
					}
					cancel()
				}
				if so.Progress != nil {
					mu.Lock()
					done++
					so.Progress(done)
					mu.Unlock()
				}
			}
		}()
	}
	feed := func() error {
		defer close(jobs)
		seen := map[int64]bool{}
		for _, f := range filters {
			f.Public = true
			err := s.store.Query(ctx, s.opts.Lookup, f, func(fd *archive.Found) error {
				if seen[fd.ID] {
					return nil
				}
				seen[fd.ID] = true
				g := &game{Path: "/a/" + strconv.FormatInt(fd.ID, 10), Record: fd.Record}
				e := fd.Entry
				g.Entry = &e
				if fd.GameID != 0 {
					ref, err := s.store.Game(ctx, fd.GameID)
					switch {
					case err == nil && s.hidden(ref):
						return nil
					case err == nil:
						g.Ref, g.Path, g.Entry = ref, "/g/"+strconv.FormatInt(ref.ID, 10), nil
					case !errors.Is(err, archive.ErrNotFound):
						return err
					}
				}
				if fd.Event != "" {
					w.addEvent(fd.Event)
				}
				for _, sd := range fd.Sides {
					w.addPlayer(PublicName(sd.Player))
				}
				select {
				case jobs <- g:
				case <-ctx.Done():
					return ctx.Err()
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		active, err := s.store.RecentGames(ctx, []string{archive.Playing, archive.Invited}, 100_000)
		if err != nil {
			return err
		}
		for _, ref := range active {
			if s.hidden(ref) || !w.selected(ref) {
				continue
			}
			for i := range ref.Seats {
				w.addPlayer(seatName(ref, i))
			}
			if ref.Options.Event != "" {
				w.addEvent(ref.Options.Event)
			}
			g := &game{Ref: ref, Path: "/g/" + strconv.FormatInt(ref.ID, 10), Record: ref.Record}
			select {
			case jobs <- g:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	}
	ferr := feed()
	wg.Wait()
	select {
	case err := <-errc:
		return w.stats, err
	default:
	}
	if ferr != nil {
		return w.stats, fmt.Errorf("web: site: %w", ferr)
	}
	// The lists.
	pages := []struct {
		path string
		p    pageFunc
		vals map[string]string
	}{
		{"/", s.indexPage, nil},
		{"/archive", s.archivePage, nil},
		{"/ratings", s.ratingsIndex, nil},
	}
	for _, id := range s.opts.Games {
		pages = append(pages, struct {
			path string
			p    pageFunc
			vals map[string]string
		}{"/ratings/" + fileSlug(id), s.ratingsPage, map[string]string{"game": id}})
	}
	for _, e := range sortedKeys(w.events) {
		pages = append(pages, struct {
			path string
			p    pageFunc
			vals map[string]string
		}{"/events/" + fileSlug(e), s.eventPage, map[string]string{"name": e}})
	}
	for _, n := range sortedKeys(w.players) {
		pages = append(pages, struct {
			path string
			p    pageFunc
			vals map[string]string
		}{"/players/" + fileSlug(n), s.playerPage, map[string]string{"name": n}})
	}
	for _, pg := range pages {
		err := w.page(ctx, pg.path, pg.p, pg.vals)
		if errors.Is(err, errHidden) {
			continue
		}
		if err != nil {
			return w.stats, err
		}
	}
	return w.stats, nil
}

// fileSlug is the file name of a name's page in a static site (without
// its extension): distinct names have distinct files and every page links
// a name to the same file. A name of ASCII letters, digits, '-', '.' and
// spaces, not starting with '.', of at most slugMax bytes is itself, its
// spaces written '_' ("Autumn Cup" is Autumn_Cup); any other name is the
// start of such a spelling, '_' for every other character, then '~' and 16
// hex digits of the name's SHA-256 ("Jörg" is J_rg~...), so that no name
// is too long for a file system and two names never share a file.
func fileSlug(name string) string {
	plain := len(name) > 0 && len(name) <= slugMax && name[0] != '.'
	b := make([]byte, 0, len(name))
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.':
		case c == ' ':
			c = '_'
		default:
			c, plain = '_', false
		}
		b = append(b, c)
	}
	if plain {
		return string(b)
	}
	prefix := strings.TrimLeft(string(b), ".")
	if len(prefix) > slugPrefix {
		prefix = prefix[:slugPrefix]
	}
	sum := sha256.Sum256([]byte(name))
	return prefix + "~" + hex.EncodeToString(sum[:8])
}

// slugMax is the longest name that is its own file name; slugPrefix how
// much of a longer (or unusual) one its file name keeps.
const (
	slugMax    = 64
	slugPrefix = 40
)

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// siteWriter writes the files of one static site.
type siteWriter struct {
	s   *Server
	dir string
	o   SiteOptions

	mu      sync.Mutex
	stats   SiteStats
	events  map[string]bool
	players map[string]bool
	games   map[string]bool // site paths of the games written
	dirs    sync.Map

	histOnce sync.Once
	hist     []*archive.RatingHistory
	histErr  error
}

// histories computes the rating histories once for all player pages.
func (w *siteWriter) histories(ctx context.Context) ([]*archive.RatingHistory, error) {
	w.histOnce.Do(func() {
		w.hist, w.histErr = w.s.store.RatingHistories(ctx, w.s.opts.Lookup, archive.Filter{Public: true})
	})
	return w.hist, w.histErr
}

// has reports whether the site writes the page of a name of set (players
// or events).
func (w *siteWriter) has(set map[string]bool, name string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return set[name]
}

func (w *siteWriter) addEvent(e string) {
	w.mu.Lock()
	w.events[e] = true
	w.mu.Unlock()
}

func (w *siteWriter) addPlayer(n string) {
	if n == "anonymous" {
		return
	}
	w.mu.Lock()
	w.players[n] = true
	w.mu.Unlock()
}

// selected reports whether a referee game passes the event and game
// filters.
func (w *siteWriter) selected(g *archive.Game) bool {
	if len(w.o.Events) > 0 && !slices.ContainsFunc(w.o.Events, func(e string) bool { return strings.EqualFold(e, g.Options.Event) }) {
		return false
	}
	if len(w.o.Games) > 0 && !slices.ContainsFunc(w.o.Games, func(id string) bool { return strings.EqualFold(id, g.Game) }) {
		return false
	}
	return true
}

// write writes one file of the site (path relative to the site root).
func (w *siteWriter) write(rel string, data []byte) error {
	file := filepath.Join(w.dir, filepath.FromSlash(rel))
	d := filepath.Dir(file)
	if _, ok := w.dirs.Load(d); !ok {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("web: site: %w", err)
		}
		w.dirs.Store(d, true)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return fmt.Errorf("web: site: %w", err)
	}
	w.mu.Lock()
	w.stats.Pages++
	w.stats.Bytes += len(data)
	w.mu.Unlock()
	return nil
}

// game writes the pages of one game: one per ply (the last is the game's
// own page) and its record.
func (w *siteWriter) game(ctx context.Context, g *game) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w.s.check(g)
	last := g.plies()
	var b strings.Builder
	for ply := last; ply >= 0; ply-- {
		path := g.Path
		if ply != last {
			if !w.o.Plies {
				break
			}
			path += "?ply=" + strconv.Itoa(ply)
		}
		rel := staticFile(path)
		k := linker{static: true, depth: strings.Count(rel, "/"), noPlies: !w.o.Plies, site: w}
		b.Reset()
		if err := pages.ExecuteTemplate(&b, "game", w.s.gameView(g, ply, k)); err != nil {
			return fmt.Errorf("web: site: %s: %w", rel, err)
		}
		if err := w.write(rel, []byte(b.String())); err != nil {
			return err
		}
	}
	if err := w.write(staticFile(g.Path+".pgn"), []byte(g.PublicRecord())); err != nil {
		return err
	}
	w.mu.Lock()
	w.stats.Games++
	w.games[g.Path] = true
	w.mu.Unlock()
	return nil
}

// page writes one list page; vals are its path values.
func (w *siteWriter) page(ctx context.Context, path string, p pageFunc, vals map[string]string) error {
	r := &http.Request{Method: "GET", URL: &url.URL{Path: path}}
	for k, v := range vals {
		r.SetPathValue(k, v)
	}
	rel := staticFile(path)
	k := linker{static: true, depth: strings.Count(rel, "/"), noPlies: !w.o.Plies, site: w}
	name, v, err := p(ctx, r.WithContext(ctx), k)
	if err != nil {
		return err
	}
	var b strings.Builder
	if err := pages.ExecuteTemplate(&b, name, v); err != nil {
		return fmt.Errorf("web: site: %s: %w", rel, err)
	}
	return w.write(rel, []byte(b.String()))
}
