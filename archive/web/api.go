package web

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"pbem/archive"
	"pbem/engine"
)

// The read-only JSON API under /api/v1/: the same games, events, players
// and ratings as the pages, with the same privacy (private games are on
// no list and their pages are 404), as data for programs. Its document is
// openapi.json, served at /api/v1/openapi.json.

//go:embed openapi.json
var openAPI []byte

// API limits: a list returns at most APIMaxLimit items a request
// (APIDefaultLimit unless asked), and skips at most APIMaxOffset, so that
// a request never holds more than their sum of games.
const (
	APIDefaultLimit = 50
	APIMaxLimit     = 100
	APIMaxOffset    = 1000
)

// apiRoutes adds the API's routes to m.
func (s *Server) apiRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /api/v1/openapi.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Write(openAPI)
	})
	m.HandleFunc("GET /api/v1/games", s.expensive(s.api(s.apiGames)))
	m.HandleFunc("GET /api/v1/games/{id}", s.keyed(s.apiGame))
	m.HandleFunc("GET /api/v1/events/{name}", s.expensive(s.api(s.apiEvent)))
	m.HandleFunc("GET /api/v1/players/{name}", s.expensive(s.api(s.apiPlayer)))
	m.HandleFunc("GET /api/v1/ratings/{game}", s.expensive(s.api(s.apiRatings)))
	s.playRoutes(m)
	m.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		apiError(w, http.StatusNotFound, fmt.Sprintf("no such resource %s %s; the API is documented at /api/v1/openapi.json", r.Method, r.URL.Path))
	})
}

// apiFunc answers an API request with a value to encode as JSON.
type apiFunc func(ctx context.Context, r *http.Request) (any, error)

func (s *Server) api(f apiFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, err := f(r.Context(), r)
		var bad errBadRequest
		var st *apiStatus
		switch {
		case errors.As(err, &st):
			if st.retry > 0 {
				w.Header().Set("Retry-After", strconv.Itoa(int((st.retry+time.Second-1)/time.Second)))
			}
			if st.code == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Bearer realm="pbem"`)
			}
			body := map[string]any{"error": st.msg}
			for k, v := range st.extra {
				body[k] = v
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.WriteHeader(st.code)
			json.NewEncoder(w).Encode(body)
			return
		case errors.Is(err, errHidden):
			apiError(w, http.StatusNotFound, "not found: no such public "+strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/api/v1/"), "/"))
			return
		case errors.As(err, &bad):
			apiError(w, http.StatusBadRequest, bad.msg)
			return
		case err != nil:
			s.opts.Logger.Error("web: api failed", "path", r.URL.Path, "err", err)
			apiError(w, http.StatusInternalServerError, "internal error")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		enc.Encode(v)
	}
}

// apiErr is the body of every API error.
type apiErr struct {
	Error string `json:"error"`
}

func apiError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(apiErr{Error: msg})
}

// APIGame is a game in a list.
type APIGame struct {
	// ID is the game's id: a number for a game the referee runs, "a"
	// and a number for an imported one.
	ID      string   `json:"id"`
	URL     string   `json:"url"`
	Game    string   `json:"game"`
	Status  string   `json:"status"`
	Event   string   `json:"event,omitempty"`
	Date    string   `json:"date,omitempty"`
	Players []string `json:"players"`
	Result  string   `json:"result,omitempty"`
}

func apiGameOf(row gameRow) APIGame {
	g := APIGame{ID: row.ID, URL: row.Path, Game: row.Game, Status: row.Status, Event: row.Event, Date: row.Date, Result: row.Result, Players: []string{}}
	for _, p := range row.Players {
		g.Players = append(g.Players, p.Name)
	}
	return g
}

// APIGameList is a page of a list of games.
type APIGameList struct {
	Games []APIGame `json:"games"`
	Total int       `json:"total"`
	// More says that more games than Total are found (a search by
	// position counts up to a bound).
	More   bool `json:"more,omitempty"`
	Offset int  `json:"offset"`
	Limit  int  `json:"limit"`
	// Next is the address of the next page, "" on the last.
	Next string `json:"next,omitempty"`
}

// pagination reads ?limit= and ?offset=.
func pagination(q url.Values) (limit, offset int, err error) {
	limit, offset = APIDefaultLimit, 0
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > APIMaxLimit {
			return 0, 0, errBadRequest{fmt.Sprintf("bad limit %q; expected a number from 1 to %d", v, APIMaxLimit)}
		}
		limit = n
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > APIMaxOffset {
			return 0, 0, errBadRequest{fmt.Sprintf("bad offset %q; expected a number from 0 to %d", v, APIMaxOffset)}
		}
		offset = n
	}
	return limit, offset, nil
}

// apiGames lists games: the finished ones as the archive page searches
// them (game, player, event, since, q), the newest first, or with
// status=playing the games under way (game, player, event).
func (s *Server) apiGames(ctx context.Context, r *http.Request) (any, error) {
	q := r.URL.Query()
	limit, offset, err := pagination(q)
	if err != nil {
		return nil, err
	}
	var rows []gameRow
	total, more := 0, false
	skip := offset // rows before the page
	switch st := q.Get("status"); st {
	case "", archive.Over:
		f := archive.Filter{Game: q.Get("game"), Name: q.Get("player"), Event: q.Get("event"),
			Since: strings.ReplaceAll(q.Get("since"), "-", "."), Text: strings.Fields(q.Get("q")), Position: strings.TrimSpace(q.Get("position"))}
		if f.Position != "" && f.Game == "" {
			if f.Game = s.positionGame(f.Position); f.Game == "" {
				return nil, errBadRequest{"the position is no game's position text; expected one in a game's notation, or give game to see what is wrong with it"}
			}
		}
		if f.Position != "" {
			// Paged by the index: rows are the page itself.
			rows, total, more, err = s.positionSearch(ctx, f, limit, offset, linker{})
			if err != nil {
				return nil, errBadRequest{strings.TrimPrefix(err.Error(), "archive: ")}
			}
			skip = 0
			break
		}
		rows, total, err = s.search(ctx, f, offset+limit, linker{})
		if err != nil {
			return nil, errBadRequest{strings.TrimPrefix(err.Error(), "archive: ")}
		}
	case archive.Playing:
		if q.Get("since") != "" || q.Get("q") != "" || q.Get("position") != "" {
			return nil, errBadRequest{"since, q and position search finished games only; expected game, player and event with status=playing"}
		}
		rows, err = s.playing(ctx, q.Get("game"), q.Get("player"), q.Get("event"))
		if err != nil {
			return nil, err
		}
		total = len(rows)
		rows = rows[:min(len(rows), offset+limit)]
	default:
		return nil, errBadRequest{fmt.Sprintf("bad status %q; expected over or playing", st)}
	}
	out := &APIGameList{Games: []APIGame{}, Total: total, More: more, Offset: offset, Limit: limit}
	for _, row := range rows[min(skip, len(rows)):] {
		out.Games = append(out.Games, apiGameOf(row))
	}
	if (offset+limit < total || more) && offset+limit <= APIMaxOffset {
		q.Set("offset", strconv.Itoa(offset+limit))
		out.Next = "/api/v1/games?" + q.Encode()
	}
	return out, nil
}

// playing lists the public games under way, the most recently changed
// first, of a game id, a player (a prefix of a public name) and an event.
func (s *Server) playing(ctx context.Context, id, player, event string) ([]gameRow, error) {
	active, err := s.store.RecentGames(ctx, []string{archive.Playing}, APIMaxOffset+APIMaxLimit)
	if err != nil {
		return nil, err
	}
	player = strings.ToLower(strings.Join(strings.Fields(archive.NameForm(player)), " "))
	var rows []gameRow
	for _, g := range active {
		if s.hidden(g) || id != "" && !strings.EqualFold(id, g.Game) || event != "" && !strings.EqualFold(event, g.Options.Event) {
			continue
		}
		row := s.refRow(g, linker{})
		if player != "" && !anyPrefix(row, player) {
			continue
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// anyPrefix reports whether the public name of a player of row starts
// with k (lower case), as the archive's player filter matches.
func anyPrefix(row gameRow, k string) bool {
	for _, p := range row.Players {
		if strings.HasPrefix(strings.ToLower(p.Name), k) {
			return true
		}
	}
	return false
}

// APIGameDetail is one game: its players, state, record and position.
type APIGameDetail struct {
	APIGame
	Round  string `json:"round,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Sides are the seats in order, with the public name of each player.
	Sides []APISide `json:"sides"`
	// ToMove is the side to move of a game under way; Deadline when its
	// time runs out (RFC 3339, UTC).
	ToMove   string `json:"to_move,omitempty"`
	Deadline string `json:"deadline,omitempty"`
	// Plies are the canonical plies of the main line.
	Plies []string `json:"plies"`
	// Position is the position's text in the game's notation (when the
	// game has one); Board the position drawn in ASCII.
	Position string `json:"position,omitempty"`
	Board    string `json:"board,omitempty"`
	// Record is the game's record, addresses hidden (as /g/ID.pgn).
	Record string `json:"record"`
}

// APISide is one seat of a game.
type APISide struct {
	Side   string `json:"side"`
	Player string `json:"player"`
}

func (s *Server) apiGame(ctx context.Context, r *http.Request) (any, error) {
	idText := r.PathValue("id")
	var g *game
	var err error
	if n, ok := strings.CutPrefix(idText, "a"); ok {
		id, perr := parseID(n)
		if perr != nil {
			return nil, perr
		}
		g, err = s.loadEntry(ctx, id)
	} else {
		id, perr := parseID(idText)
		if perr != nil {
			return nil, perr
		}
		g, err = s.loadRef(ctx, id)
		if errors.Is(err, errHidden) && r.Header.Get("Authorization") != "" {
			// A private game shows to its players, by their key.
			if _, seat, aerr := s.authGame(ctx, r, true); aerr == nil && seat >= 0 {
				return s.detail(ctx, id)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return s.gameDetail(g, idText), nil
}

// gameDetail is g as the API shows it.
func (s *Server) gameDetail(g *game, idText string) *APIGameDetail {
	p := s.gameView(g, -1, linker{}).Body.(*gamePage)
	d := &APIGameDetail{APIGame: APIGame{ID: idText, URL: g.Path, Game: p.Game, Status: p.Status, Event: p.Event, Date: p.Date, Result: p.Result, Players: []string{}},
		Round: p.Round, Reason: p.Reason, Sides: []APISide{}, Plies: []string{}, Record: g.PublicRecord()}
	if d.Status == "archived" {
		d.Status = archive.Over
	}
	for _, pl := range p.Players {
		d.Players = append(d.Players, pl.Name)
		d.Sides = append(d.Sides, APISide{Side: pl.Side, Player: pl.Name})
		if pl.ToMove {
			d.ToMove = pl.Side
			if g.Ref != nil && !g.Ref.Deadline.IsZero() {
				d.Deadline = g.Ref.Deadline.UTC().Format(time.RFC3339)
			}
		}
	}
	for _, pl := range p.Plies {
		d.Plies = append(d.Plies, pl.Text)
	}
	if g.Checked != nil {
		st := g.Checked.Lines[g.plies()].State()
		d.Board = st.Render(-1)
		if text, _, ok := engine.Position(st); ok {
			d.Position = text
		}
	}
	return d
}

// APIEvent is an event's crosstable standings and games, a page of each
// (limit and offset).
type APIEvent struct {
	Event string `json:"event"`
	// Games counts the games with a result, Players the rows of the
	// standings.
	Games     int           `json:"games"`
	Players   int           `json:"players"`
	Standings []APIStanding `json:"standings"`
	List      APIGameList   `json:"list"`
}

// APIStanding is one player's place in an event.
type APIStanding struct {
	Rank     int     `json:"rank"`
	Player   string  `json:"player"`
	Games    int     `json:"games"`
	Score    float64 `json:"score"`
	TieBreak float64 `json:"sonneborn_berger"`
}

func (s *Server) apiEvent(ctx context.Context, r *http.Request) (any, error) {
	limit, offset, err := pagination(r.URL.Query())
	if err != nil {
		return nil, err
	}
	_, v, err := s.eventPage(ctx, r, linker{})
	if err != nil {
		return nil, err
	}
	p := v.Body.(*eventPage)
	out := &APIEvent{Event: p.Event, Games: p.Games, Players: len(p.Players), Standings: []APIStanding{},
		List: APIGameList{Games: []APIGame{}, Total: len(p.List), Offset: offset, Limit: limit}}
	for _, row := range p.Players[min(offset, len(p.Players)):min(offset+limit, len(p.Players))] {
		score, _ := strconv.ParseFloat(row.Score, 64)
		sb, _ := strconv.ParseFloat(row.SB, 64)
		out.Standings = append(out.Standings, APIStanding{Rank: row.Rank, Player: row.Name.Name, Games: row.Games, Score: score, TieBreak: sb})
	}
	for _, row := range p.List[min(offset, len(p.List)):min(offset+limit, len(p.List))] {
		out.List.Games = append(out.List.Games, apiGameOf(row))
	}
	if offset+limit < max(len(p.List), len(p.Players)) && offset+limit <= APIMaxOffset {
		out.List.Next = r.URL.EscapedPath() + "?offset=" + strconv.Itoa(offset+limit) + "&limit=" + strconv.Itoa(limit)
	}
	return out, nil
}

// APIPlayer is a public player: games under way, finished games (the
// newest, at most APIMaxLimit) and ratings.
type APIPlayer struct {
	Name     string      `json:"name"`
	Playing  []APIGame   `json:"playing"`
	Finished []APIGame   `json:"finished"`
	Total    int         `json:"finished_total"`
	Ratings  []APIRating `json:"ratings"`
}

// APIRating is a player's rating in one game.
type APIRating struct {
	Game   string `json:"game"`
	Rating int    `json:"rating"`
	Games  int    `json:"games"`
}

func (s *Server) apiPlayer(ctx context.Context, r *http.Request) (any, error) {
	_, v, err := s.playerPage(ctx, r, linker{})
	if err != nil {
		return nil, err
	}
	p := v.Body.(*playerPage)
	out := &APIPlayer{Name: p.Name, Playing: []APIGame{}, Finished: []APIGame{}, Total: p.Total, Ratings: []APIRating{}}
	for _, row := range p.Active {
		out.Playing = append(out.Playing, apiGameOf(row))
	}
	for _, row := range p.Games[:min(len(p.Games), APIMaxLimit)] {
		out.Finished = append(out.Finished, apiGameOf(row))
	}
	for _, h := range p.Ratings {
		out.Ratings = append(out.Ratings, APIRating{Game: h.Game, Rating: h.Rating, Games: len(h.Points)})
	}
	return out, nil
}

// APIRatings is the rating list of one game.
type APIRatings struct {
	Game string `json:"game"`
	// Games counts the rated games, Total the players.
	Games   int            `json:"games"`
	Total   int            `json:"total"`
	Players []APIRatingRow `json:"players"`
}

// APIRatingRow is one player of a rating list.
type APIRatingRow struct {
	Rank   int    `json:"rank"`
	Player string `json:"player"`
	Rating int    `json:"rating"`
	Games  int    `json:"games"`
}

func (s *Server) apiRatings(ctx context.Context, r *http.Request) (any, error) {
	limit, offset, err := pagination(r.URL.Query())
	if err != nil {
		return nil, err
	}
	_, v, err := s.ratingsPage(ctx, r, linker{})
	if err != nil {
		return nil, err
	}
	p := v.Body.(*ratingsPage)
	out := &APIRatings{Game: p.Game, Games: p.Games, Total: len(p.Players), Players: []APIRatingRow{}}
	for _, row := range p.Players[min(offset, len(p.Players)):min(offset+limit, len(p.Players))] {
		out.Players = append(out.Players, APIRatingRow{Rank: row.Rank, Player: row.Name.Name, Rating: row.Rating, Games: row.Games})
	}
	return out, nil
}
