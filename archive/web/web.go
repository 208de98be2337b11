// Package web is pbem's read-only web face: the game pages (the position as
// an SVG board, whose turn, clocks, players by name, the move list with a
// page per ply, the record for download, live updates by Server-Sent
// Events), the archive browser (search, crosstables, ratings, players),
// the standings and pairings of the tournaments the referee runs (which
// the program hands in as plain data, Options.Tournaments) and the same
// pages written as a static site.
//
// It reads the store through archive and draws positions through
// engine.Layouter; the game catalog comes in as a notation.Lookup, so that
// the package knows no game by name. Live updates arrive through a
// Notifier that the program wires (a Poller over the store, or a
// Broadcaster told of every commit). Pages use html/template, no external
// resource and a few lines of inline JavaScript for keyboard stepping and
// live updates; they work without it.
package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"

	"pbem/archive"
	"pbem/notation"
)

// Options configure a Server.
type Options struct {
	// Lookup is the game catalog (required).
	Lookup notation.Lookup
	// Games are the catalog's game ids, for the ratings index.
	Games []string
	// Private reports whether a game is hidden from every page and list
	// (games the players marked private); nil hides none.
	Private func(*archive.Game) bool
	// Notifier tells of games that changed, for live pages; nil: pages do
	// not update live.
	Notifier Notifier
	// Now is the clock for the time left (default time.Now).
	Now func() time.Time
	// BaseURL is the site's public address (web.base_url), for the
	// absolute links and ids of the feeds; "" takes the address each
	// request came to.
	BaseURL string
	// Title names the site (default "pbem").
	Title string
	// Logger logs failures to read the store (default slog.Default()).
	Logger *slog.Logger
	// Heartbeat is how often an idle event stream sends a comment (default
	// 15s).
	Heartbeat time.Duration
	// Tournaments returns the tournaments the referee runs under an
	// event's name (compared case-insensitively, as Event tags are; none,
	// one, or several of one name), whose standings and pairings the event
	// page shows above the archive's crosstable; nil: none.
	Tournaments func(ctx context.Context, event string) ([]*TournamentView, error)

	// Player plays for the API's callers with a game's token (POST
	// /api/v1/games/{id}/move and the like) on the referee's request
	// path; nil: those requests are answered 503.
	Player Player

	// MaxExpensive bounds the pages computed from the whole archive
	// (search, events, ratings, players) at once (default half the CPUs,
	// at least 1): a request beyond it is answered 503 with Retry-After,
	// so that web load never takes the CPU the referee needs.
	MaxExpensive int
	// MaxStreams bounds the live-update streams open at once (default
	// 1000), MaxStreamsPerClient those of one client address (default 8;
	// an IPv6 address counts by its /64): beyond them, 503.
	MaxStreams, MaxStreamsPerClient int
	// StreamLifetime ends a live-update stream (default 30 minutes); the
	// page's script opens another.
	StreamLifetime time.Duration
}

// Server serves the pages. It is an http.Handler.
type Server struct {
	store *archive.Store
	opts  Options
	mux   *http.ServeMux

	busy    chan struct{} // a token per expensive request under way
	streams streamCount
	keys    keyFailures // wrong API keys per client (keyguess.go)
	cache   pageCache
}

// New returns a Server over store.
func New(store *archive.Store, o *Options) (*Server, error) {
	s := &Server{store: store}
	if o != nil {
		s.opts = *o
	}
	if s.opts.Lookup == nil {
		return nil, errors.New("web: no game catalog (Options.Lookup)")
	}
	if s.opts.Now == nil {
		s.opts.Now = time.Now
	}
	if s.opts.Title == "" {
		s.opts.Title = "pbem"
	}
	if s.opts.Logger == nil {
		s.opts.Logger = slog.Default()
	}
	if s.opts.Heartbeat <= 0 {
		s.opts.Heartbeat = 15 * time.Second
	}
	if s.opts.MaxExpensive <= 0 {
		s.opts.MaxExpensive = max(1, runtime.GOMAXPROCS(0)/2)
	}
	if s.opts.MaxStreams <= 0 {
		s.opts.MaxStreams = 1000
	}
	if s.opts.MaxStreamsPerClient <= 0 {
		s.opts.MaxStreamsPerClient = 8
	}
	if s.opts.StreamLifetime <= 0 {
		s.opts.StreamLifetime = 30 * time.Minute
	}
	s.busy = make(chan struct{}, s.opts.MaxExpensive)
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", s.page(s.indexPage))
	m.HandleFunc("GET /archive", s.expensive(s.page(s.archivePage)))
	m.HandleFunc("GET /g/{id}", s.gameRoute)
	m.HandleFunc("GET /g/{id}/events", s.stream)
	m.HandleFunc("GET /a/{id}", s.entryRoute)
	m.HandleFunc("GET /events/{name}", s.expensive(s.page(s.pagedEvent)))
	m.HandleFunc("GET /ratings", s.page(s.ratingsIndex))
	m.HandleFunc("GET /ratings/{game}", s.expensive(s.page(s.cached(s.ratingsPage))))
	m.HandleFunc("GET /players/{name}", s.expensive(s.page(s.cached(s.playerPage))))
	m.HandleFunc("GET /feed.atom", s.indexFeed)
	m.HandleFunc("GET /events/{name}/feed.atom", s.expensive(s.eventFeed))
	m.HandleFunc("GET /players/{name}/feed.atom", s.expensive(s.playerFeed))
	m.HandleFunc("GET /players/{name}/deadlines.ics", s.expensive(s.deadlines))
	m.HandleFunc("GET /unsubscribe", s.unsubscribe)
	m.HandleFunc("POST /unsubscribe", s.unsubscribe)
	m.HandleFunc("GET /explore/{game}", s.expensive(s.page(s.explorePage)))
	s.apiRoutes(m)
	s.mux = m
	return s, nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Security-Policy", contentSecurityPolicy)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "same-origin")
	if n := len(r.RequestURI); n > MaxURL {
		http.Error(w, fmt.Sprintf("request address of %d bytes; the pages take at most %d", n, MaxURL), http.StatusRequestURITooLong)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// GameURL is the address of game id's page under the site's base URL
// (web.base_url), for links in mail; "" when base is "".
func GameURL(base string, id int64) string {
	if base == "" {
		return ""
	}
	return strings.TrimRight(base, "/") + "/g/" + strconv.FormatInt(id, 10)
}

// linker writes links: absolute paths on the server, relative file names
// in a static site.
type linker struct {
	static bool
	depth  int // directories below the site root of the page written
	// noPlies: the static site has no page per ply.
	noPlies bool
	// site is the static site being written (nil on the server).
	site *siteWriter
}

// url turns a site path ("/g/5?ply=3") into a link from the current page.
func (k linker) url(p string) string {
	if !k.static {
		return p
	}
	return strings.Repeat("../", k.depth) + staticFile(p)
}

// staticFile is the file of the static site that holds the page at p.
func staticFile(p string) string {
	path, query, _ := strings.Cut(p, "?")
	path = strings.TrimPrefix(path, "/")
	if path == "" {
		return "index.html"
	}
	if strings.HasSuffix(path, ".pgn") {
		return path
	}
	if v, err := url.ParseQuery(query); err == nil && v.Get("ply") != "" {
		return path + "/" + v.Get("ply") + ".html"
	}
	return path + ".html"
}

// written reports whether the page of a game (its site path) is there to
// link to: always on the server, in a static site when it was written.
func (k linker) written(path string) bool {
	return k.site == nil || k.site.has(k.site.games, path)
}

// slug is a name as it appears in a path: escaped on the server, a safe
// file name in a static site.
func (k linker) slug(name string) string {
	if !k.static {
		return url.PathEscape(name)
	}
	return fileSlug(name)
}

// view is what every page template gets.
type view struct {
	Site  string
	Title string
	Live  string // the event stream of a live page, "" for none
	// Static is true for a page of a static site (no search form).
	Static bool
	// Feed is the page's Atom feed ("" for none).
	Feed string
	Body any
	link linker
}

// URL is the link to the site path p from the page.
func (v *view) URL(p string) string { return v.link.url(p) }

// pageFunc builds a page: its template name and view, or an error
// (errHidden gives 404).
type pageFunc func(ctx context.Context, r *http.Request, k linker) (string, *view, error)

func (s *Server) page(p pageFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name, v, err := p(r.Context(), r, linker{})
		if err != nil {
			s.fail(w, r, err)
			return
		}
		s.render(w, name, v)
	}
}

// errBadRequest marks a request the pages cannot answer as asked.
type errBadRequest struct{ msg string }

func (e errBadRequest) Error() string { return e.msg }

func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var bad errBadRequest
	switch {
	case errors.Is(err, errHidden):
		http.Error(w, "no such page", http.StatusNotFound)
	case errors.As(err, &bad):
		http.Error(w, bad.msg, http.StatusBadRequest)
	default:
		s.opts.Logger.Error("web: page failed", "path", r.URL.Path, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
	}
}

func (s *Server) render(w http.ResponseWriter, name string, v *view) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := pages.ExecuteTemplate(w, name, v); err != nil {
		s.opts.Logger.Error("web: template failed", "page", name, "err", err)
	}
}

// gameRoute serves /g/ID and /g/ID.pgn.
func (s *Server) gameRoute(w http.ResponseWriter, r *http.Request) {
	if id, ok := strings.CutSuffix(r.PathValue("id"), ".pgn"); ok {
		s.record(w, r, id, s.loadRef)
		return
	}
	s.page(s.refPage)(w, r)
}

// entryRoute serves /a/ID and /a/ID.pgn.
func (s *Server) entryRoute(w http.ResponseWriter, r *http.Request) {
	if id, ok := strings.CutSuffix(r.PathValue("id"), ".pgn"); ok {
		s.record(w, r, id, s.loadEntry)
		return
	}
	s.page(s.entryPage)(w, r)
}

// record serves a game's record for download, addresses hidden.
func (s *Server) record(w http.ResponseWriter, r *http.Request, num string, load func(context.Context, int64) (*game, error)) {
	id, err := parseID(num)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	g, err := load(r.Context(), id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/x-chess-pgn; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="game-%d.pgn"`, id))
	fmt.Fprint(w, g.PublicRecord())
}

func parseID(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, errHidden
	}
	return n, nil
}

// plyParam reads ?ply=N: -1 when absent.
func plyParam(r *http.Request) (int, error) {
	v := r.URL.Query().Get("ply")
	if v == "" {
		return -1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, errBadRequest{fmt.Sprintf("bad ply %q; expected a number of plies such as 0 or 12", v)}
	}
	return n, nil
}

func (s *Server) refPage(ctx context.Context, r *http.Request, k linker) (string, *view, error) {
	id, err := parseID(r.PathValue("id"))
	if err != nil {
		return "", nil, err
	}
	ply, err := plyParam(r)
	if err != nil {
		return "", nil, err
	}
	g, err := s.loadRef(ctx, id)
	if err != nil {
		return "", nil, err
	}
	return "game", s.gameView(g, ply, k), nil
}

func (s *Server) entryPage(ctx context.Context, r *http.Request, k linker) (string, *view, error) {
	id, err := parseID(r.PathValue("id"))
	if err != nil {
		return "", nil, err
	}
	ply, err := plyParam(r)
	if err != nil {
		return "", nil, err
	}
	g, err := s.loadEntry(ctx, id)
	if err != nil {
		return "", nil, err
	}
	return "game", s.gameView(g, ply, k), nil
}
