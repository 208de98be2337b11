package web

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"pbem/archive"
)

// The API's part for players: with a game's token (the one a player's
// mail carries in its subject and reply address) as a Bearer key, a
// player lists their games and plays: plies, offers and answers,
// resignation, conditional lines. What changes a game goes through the
// Player the program wires (Options.Player), which reads the request
// exactly as the same words by mail; this package never decides a game.

// Player carries out a player's request on the referee's request path.
type Player interface {
	Play(ctx context.Context, req PlayRequest) (PlayResult, error)
}

// PlayRequest is a player's request: the game and seat the token proves,
// and the command as a mail from the seat's player would write it.
type PlayRequest struct {
	Game int64
	// Name and Addr are the seat's player's display name and address,
	// Token the seat's token, as the store has them.
	Name, Addr, Token string
	// Command is the mail's body: one command line ("move 12 e4 #5",
	// "accept draw", "conditions clear 12") or the game's conditional
	// lines, one a line.
	Command string
}

// PlayResult is what the referee answered.
type PlayResult struct {
	// Reply is what the reply mail would have said (its paragraphs;
	// players named, never by address).
	Reply string
	// Refused is the player's mistake, Expected what was expected ("":
	// the request was carried out).
	Refused, Expected string
	// Stale is set when a ply was refused for its ply number; Next is the
	// number of the ply the game expects.
	Stale bool
	Next  int
	// LimitedUntil is set when the player's rate limit refused the
	// request: when its window ends.
	LimitedUntil time.Time
	// Unread is set when the referee did not read the request (a blocked
	// sender).
	Unread bool
}

// ErrNotLeader is what a Player returns when this instance does not write
// to the store (another one leads): the API answers 503, try again.
var ErrNotLeader = errors.New("web: this instance does not lead; another one writes")

// MaxRequestBody bounds the body of a request that plays (bytes).
const MaxRequestBody = 64 << 10

// tokenRE is the shape of a Bearer key: a game's token, optionally after
// the game's id and a dot ("12.k7x9qabc", as in the reply address).
var tokenRE = regexp.MustCompile(`^(?:([1-9][0-9]{0,17})\.)?([a-z2-9]{8})$`)

// apiStatus is an error answered with an HTTP status.
type apiStatus struct {
	code  int
	msg   string
	extra map[string]any // more fields of the error body
	retry time.Duration  // Retry-After, when above zero
}

func (e *apiStatus) Error() string { return e.msg }

// bearer reads the Authorization header: the game id it names (0: none)
// and the token. A missing or garbled one is a 401.
func bearer(r *http.Request) (int64, string, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return 0, "", &apiStatus{code: http.StatusUnauthorized, msg: "no Authorization header; expected Authorization: Bearer TOKEN, with your token of the game (its mail's subject carries [pbem #ID TOKEN])"}
	}
	scheme, v, _ := strings.Cut(h, " ")
	m := tokenRE.FindStringSubmatch(strings.ToLower(strings.TrimSpace(v)))
	if !strings.EqualFold(scheme, "Bearer") || m == nil {
		return 0, "", &apiStatus{code: http.StatusUnauthorized, msg: "garbled Authorization header; expected Bearer TOKEN or Bearer GAMEID.TOKEN, the token being the 8 letters and digits of [pbem #ID TOKEN]"}
	}
	var id int64
	if m[1] != "" {
		id, _ = strconv.ParseInt(m[1], 10, 64)
	}
	return id, m[2], nil
}

// seatOf is the seat whose token is token, or -1.
func seatOf(g *archive.Game, token string) int {
	for i, st := range g.Seats {
		if st.Token != "" && subtle.ConstantTimeCompare([]byte(st.Token), []byte(token)) == 1 {
			return i
		}
	}
	return -1
}

// authGame reads the game of the path and the seat the request's token
// proves. A game hidden from the pages (private) is a 404 to anyone but
// its players; a token of another game or seatless is a 403. With
// optional set, a request without Authorization reads a public game with
// seat -1.
func (s *Server) authGame(ctx context.Context, r *http.Request, optional bool) (*archive.Game, int, error) {
	id, perr := parseID(r.PathValue("id"))
	if perr != nil {
		return nil, -1, errHidden
	}
	var tokID int64
	var token string
	var aerr error
	if !optional || r.Header.Get("Authorization") != "" {
		tokID, token, aerr = bearer(r)
	}
	g, err := s.store.Game(ctx, id)
	switch {
	case errors.Is(err, archive.ErrNotFound):
		// 404 whatever the key, as a private game answers one without
		// its players' key: the answers do not tell them apart.
		return nil, -1, errHidden
	case err != nil:
		return nil, -1, err
	}
	seat := -1
	if token != "" && (tokID == 0 || tokID == id) {
		seat = seatOf(g, token)
	}
	if seat < 0 && s.hidden(g) {
		return nil, -1, errHidden // the same answer as a game that does not exist
	}
	if aerr != nil {
		return nil, -1, aerr
	}
	if token != "" && seat < 0 {
		return nil, -1, &apiStatus{code: http.StatusForbidden, msg: fmt.Sprintf("this token is no player's token of game #%d; expected your own token of this game (each game has its own)", id)}
	}
	return g, seat, nil
}

// playRoutes adds the routes of the players' part.
func (s *Server) playRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /api/v1/me/games", s.keyed(s.apiMyGames))
	// Generating every legal ply costs CPU: bounded as the pages
	// computed from the whole archive are.
	m.HandleFunc("GET /api/v1/games/{id}/legal", s.expensive(s.keyed(s.apiLegal)))
	m.HandleFunc("POST /api/v1/games/{id}/move", s.keyed(s.apiMove))
	m.HandleFunc("POST /api/v1/games/{id}/offer", s.keyed(s.apiOffer))
	m.HandleFunc("POST /api/v1/games/{id}/answer", s.keyed(s.apiAnswer))
	m.HandleFunc("POST /api/v1/games/{id}/resign", s.keyed(s.apiResign))
	m.HandleFunc("GET /api/v1/games/{id}/conditions", s.keyed(s.apiConditions))
	m.HandleFunc("PUT /api/v1/games/{id}/conditions", s.keyed(s.apiSetConditions))
	m.HandleFunc("DELETE /api/v1/games/{id}/conditions", s.keyed(s.apiClearConditions))
}

// APIMyGame is one of the caller's games.
type APIMyGame struct {
	APIGame
	// Side is the caller's side; MyTurn whether it is to move.
	Side   string `json:"side"`
	MyTurn bool   `json:"my_turn"`
	// Deadline is when the time of the side to move runs out (RFC 3339).
	Deadline string `json:"deadline,omitempty"`
	// Private is set for a game its players keep from the pages.
	Private bool `json:"private,omitempty"`
}

// APIMyGames lists the invited and playing games of the player whose
// token the request carries.
type APIMyGames struct {
	Player string      `json:"player"`
	Games  []APIMyGame `json:"games"`
}

func (s *Server) apiMyGames(ctx context.Context, r *http.Request) (any, error) {
	id, token, err := bearer(r)
	if err != nil {
		return nil, err
	}
	if id == 0 {
		return nil, &apiStatus{code: http.StatusUnauthorized, msg: "which game is this token of? expected Bearer GAMEID.TOKEN here (as the reply address referee+GAMEID.TOKEN@... writes it)"}
	}
	g, err := s.store.Game(ctx, id)
	if errors.Is(err, archive.ErrNotFound) {
		return nil, &apiStatus{code: http.StatusForbidden, msg: fmt.Sprintf("this token is no player's token of game #%d", id)}
	}
	if err != nil {
		return nil, err
	}
	seat := seatOf(g, token)
	if seat < 0 {
		return nil, &apiStatus{code: http.StatusForbidden, msg: fmt.Sprintf("this token is no player's token of game #%d", id)}
	}
	addr := g.Seats[seat].Player.Addr
	games, err := s.store.ActiveGamesOf(ctx, addr)
	if err != nil {
		return nil, err
	}
	out := &APIMyGames{Player: seatName(g, seat), Games: []APIMyGame{}}
	for _, ag := range games {
		row := apiGameOf(s.refRow(ag, linker{}))
		mg := APIMyGame{APIGame: row, Private: s.hidden(ag)}
		for i, st := range ag.Seats {
			if strings.EqualFold(st.Player.Addr, addr) {
				mg.Side = st.Side
				if ag.Status == archive.Playing {
					mg.MyTurn = s.toMove(ag) == i
				}
			}
		}
		if ag.Status == archive.Playing && !ag.Deadline.IsZero() {
			mg.Deadline = ag.Deadline.UTC().Format(time.RFC3339)
		}
		out.Games = append(out.Games, mg)
	}
	return out, nil
}

// toMove is the seat to move in a game under way, or -1.
func (s *Server) toMove(ag *archive.Game) int {
	g := &game{Ref: ag, Record: ag.Record}
	s.check(g)
	if g.Checked == nil {
		return -1
	}
	st := g.Checked.Lines[g.plies()].State()
	if st.Outcome().Over {
		return -1
	}
	return st.ToMove()
}

// APILegal lists the legal plies of the side to move.
type APILegal struct {
	Game   string   `json:"game"`
	Ply    int      `json:"ply"` // the number the next ply will have
	ToMove string   `json:"to_move"`
	Total  int      `json:"total"`
	Plies  []string `json:"plies"`
}

// MaxLegal bounds the plies a legal list shows (Total counts all).
const MaxLegal = 5000

func (s *Server) apiLegal(ctx context.Context, r *http.Request) (any, error) {
	ag, _, err := s.authGame(ctx, r, true)
	if err != nil {
		return nil, err
	}
	if ag.Status != archive.Playing {
		return nil, &apiStatus{code: http.StatusConflict, msg: fmt.Sprintf("game #%d is not under way (%s): no side is to move", ag.ID, ag.Status)}
	}
	g := &game{Ref: ag, Record: ag.Record}
	s.check(g)
	if g.Checked == nil {
		return nil, fmt.Errorf("game %d: record not readable: %s", ag.ID, g.Problem)
	}
	codec, err := s.opts.Lookup(ag.Game)
	if err != nil {
		return nil, err
	}
	st := g.Checked.Lines[g.plies()].State()
	out := &APILegal{Game: ag.Game, Ply: g.plies() + 1, ToMove: st.Sides()[st.ToMove()], Plies: []string{}}
	legal := st.Legal()
	out.Total = len(legal)
	for _, m := range legal[:min(len(legal), MaxLegal)] {
		out.Plies = append(out.Plies, codec.Encode(st, m))
	}
	return out, nil
}

// readJSON reads a request's body into v: at most MaxRequestBody bytes,
// one JSON object, no field v does not have.
func readJSON(r *http.Request, v any, expected string) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(strings.ToLower(ct), "application/json") {
		return errBadRequest{fmt.Sprintf("Content-Type %q; expected application/json with %s", ct, expected)}
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxRequestBody+1))
	if err != nil {
		return errBadRequest{"the body could not be read: " + err.Error()}
	}
	if len(body) > MaxRequestBody {
		return &apiStatus{code: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("the body is larger than %d bytes; expected %s", MaxRequestBody, expected)}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errBadRequest{fmt.Sprintf("bad body (%s); expected %s", strings.TrimPrefix(err.Error(), "json: "), expected)}
	}
	if dec.More() {
		return errBadRequest{"more than one JSON value in the body; expected " + expected}
	}
	return nil
}

// oneLine refuses a text that would be read as more than one command.
func oneLine(what, text, expected string) error {
	if strings.TrimSpace(text) == "" {
		return errBadRequest{fmt.Sprintf("%s is empty; expected %s", what, expected)}
	}
	if strings.ContainsAny(text, "\r\n\x00") || len(text) > 1000 {
		return errBadRequest{fmt.Sprintf("%s must be one line of at most 1000 bytes; expected %s", what, expected)}
	}
	return nil
}

// APIPlayed is the answer to a request that plays.
type APIPlayed struct {
	// Reply is what the referee's reply mail would have said.
	Reply string `json:"reply"`
	// Game is the game after the request.
	Game *APIGameDetail `json:"game"`
}

// play hands a command of the seat to the Player and answers with the
// game after it.
func (s *Server) play(ctx context.Context, ag *archive.Game, seat int, command string) (any, error) {
	if s.opts.Player == nil {
		return nil, &apiStatus{code: http.StatusServiceUnavailable, msg: "this server does not play: it serves the read-only API only"}
	}
	res, err := s.opts.Player.Play(ctx, PlayRequest{Game: ag.ID, Name: ag.Seats[seat].Player.Name, Addr: ag.Seats[seat].Player.Addr, Token: ag.Seats[seat].Token, Command: command})
	switch {
	case errors.Is(err, ErrNotLeader):
		return nil, &apiStatus{code: http.StatusServiceUnavailable, msg: "this instance does not write to the store now (another one leads); try again in a few seconds", retry: 2 * time.Second}
	case err != nil:
		return nil, err
	case !res.LimitedUntil.IsZero():
		wait := max(time.Second, res.LimitedUntil.Sub(s.opts.Now()))
		return nil, &apiStatus{code: http.StatusTooManyRequests, retry: wait,
			msg: fmt.Sprintf("too many requests with this player's token; the budget (the same as for mail with a game's token) comes back at %s", res.LimitedUntil.UTC().Format(time.RFC3339))}
	case res.Unread:
		return nil, &apiStatus{code: http.StatusForbidden, msg: "the referee does not read this player's requests"}
	case res.Stale:
		return nil, &apiStatus{code: http.StatusConflict, msg: scrub(res.Refused), extra: map[string]any{"expected": scrub(res.Expected), "ply": res.Next}}
	case res.Refused != "":
		return nil, &apiStatus{code: http.StatusUnprocessableEntity, msg: scrub(res.Refused), extra: map[string]any{"expected": scrub(res.Expected), "reply": scrub(res.Reply)}}
	}
	d, err := s.detail(ctx, ag.ID)
	if err != nil {
		return nil, err
	}
	return &APIPlayed{Reply: scrub(res.Reply), Game: d}, nil
}

// addrRE matches a mail address.
var addrRE = regexp.MustCompile(`<?[A-Za-z0-9.!#$%&'*+/=?^_{|}~-]+@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}>?`)

// scrub removes any mail address left in a text the referee wrote (its
// own, a watcher's): the API shows none.
func scrub(text string) string {
	return addrRE.ReplaceAllString(text, "(address hidden)")
}

// detail is a referee game as GET /api/v1/games/{id} shows it, private or
// not (the caller plays it).
func (s *Server) detail(ctx context.Context, id int64) (*APIGameDetail, error) {
	g, err := s.store.Game(ctx, id)
	if err != nil {
		return nil, err
	}
	out := &game{Ref: g, Path: "/g/" + strconv.FormatInt(id, 10), Record: g.Record}
	s.check(out)
	return s.gameDetail(out, strconv.FormatInt(id, 10)), nil
}

func (s *Server) apiMove(ctx context.Context, r *http.Request) (any, error) {
	ag, seat, err := s.authGame(ctx, r, false)
	if err != nil {
		return nil, err
	}
	var body struct {
		Ply  *int    `json:"ply"`
		Move *string `json:"move"`
	}
	const expected = `{"ply": N, "move": "TEXT"}: N the number of the ply you play (1 for the first), TEXT the ply in the game's notation`
	if err := readJSON(r, &body, expected); err != nil {
		return nil, err
	}
	if body.Ply == nil || body.Move == nil {
		return nil, errBadRequest{"ply and move are both required; expected " + expected}
	}
	if *body.Ply < 1 || *body.Ply > math.MaxInt32 {
		return nil, errBadRequest{fmt.Sprintf("ply %d; expected a number from 1 on", *body.Ply)}
	}
	mv := strings.TrimSpace(*body.Move)
	if err := oneLine("move", mv, expected); err != nil {
		return nil, err
	}
	return s.play(ctx, ag, seat, fmt.Sprintf("move %d %s #%d", ag.ID, mv, *body.Ply))
}

func (s *Server) apiOffer(ctx context.Context, r *http.Request) (any, error) {
	ag, seat, err := s.authGame(ctx, r, false)
	if err != nil {
		return nil, err
	}
	var body struct {
		Offer string `json:"offer"`
	}
	const expected = `{"offer": "draw"} or {"offer": "undo"}`
	if err := readJSON(r, &body, expected); err != nil {
		return nil, err
	}
	if body.Offer != "draw" && body.Offer != "undo" {
		return nil, errBadRequest{fmt.Sprintf("offer %q; expected %s", body.Offer, expected)}
	}
	return s.play(ctx, ag, seat, body.Offer)
}

func (s *Server) apiAnswer(ctx context.Context, r *http.Request) (any, error) {
	ag, seat, err := s.authGame(ctx, r, false)
	if err != nil {
		return nil, err
	}
	var body struct {
		Offer  string `json:"offer"`
		Answer string `json:"answer"`
	}
	const expected = `{"offer": "draw", "undo" or "invitation", "answer": "accept" or "decline"}`
	if err := readJSON(r, &body, expected); err != nil {
		return nil, err
	}
	if body.Answer != "accept" && body.Answer != "decline" {
		return nil, errBadRequest{fmt.Sprintf("answer %q; expected %s", body.Answer, expected)}
	}
	switch body.Offer {
	case "draw", "undo":
		return s.play(ctx, ag, seat, body.Answer+" "+body.Offer)
	case "invitation":
		return s.play(ctx, ag, seat, body.Answer)
	}
	return nil, errBadRequest{fmt.Sprintf("offer %q; expected %s", body.Offer, expected)}
}

func (s *Server) apiResign(ctx context.Context, r *http.Request) (any, error) {
	ag, seat, err := s.authGame(ctx, r, false)
	if err != nil {
		return nil, err
	}
	var body struct {
		Resign bool `json:"resign"`
	}
	const expected = `{"resign": true}`
	if err := readJSON(r, &body, expected); err != nil {
		return nil, err
	}
	if !body.Resign {
		return nil, errBadRequest{"resign must be true; expected " + expected}
	}
	return s.play(ctx, ag, seat, "resign")
}

// APIConditions are a seat's pending conditional lines in a game.
type APIConditions struct {
	// Base is the number of plies played when the lines were set; each
	// line is the plies from there, the others' and the seat's answers.
	Base  int        `json:"base"`
	Lines [][]string `json:"lines"`
}

// APIConditionsSet is the answer to PUT and DELETE of conditional lines.
type APIConditionsSet struct {
	Reply      string        `json:"reply"`
	Conditions APIConditions `json:"conditions"`
}

func conditionsOf(g *archive.Game, seat int) APIConditions {
	out := APIConditions{Lines: [][]string{}}
	for _, c := range g.Conditions {
		if c.Seat == seat {
			out.Base = c.Base
			for _, l := range c.Lines {
				out.Lines = append(out.Lines, append([]string{}, l...))
			}
		}
	}
	return out
}

func (s *Server) apiConditions(ctx context.Context, r *http.Request) (any, error) {
	ag, seat, err := s.authGame(ctx, r, false)
	if err != nil {
		return nil, err
	}
	return conditionsOf(ag, seat), nil
}

// conditionsAfter answers a change of conditional lines with the lines
// kept.
func (s *Server) conditionsAfter(ctx context.Context, ag *archive.Game, seat int, command string) (any, error) {
	v, err := s.play(ctx, ag, seat, command)
	if err != nil {
		return nil, err
	}
	g, err := s.store.Game(ctx, ag.ID)
	if err != nil {
		return nil, err
	}
	return &APIConditionsSet{Reply: v.(*APIPlayed).Reply, Conditions: conditionsOf(g, seat)}, nil
}

func (s *Server) apiSetConditions(ctx context.Context, r *http.Request) (any, error) {
	ag, seat, err := s.authGame(ctx, r, false)
	if err != nil {
		return nil, err
	}
	var body struct {
		Lines []string `json:"lines"`
	}
	const expected = `{"lines": ["if THEIRPLY then YOURPLY [THEIRPLY YOURPLY ...]", ...]}, at most 100 lines, replacing the lines you have`
	if err := readJSON(r, &body, expected); err != nil {
		return nil, err
	}
	if len(body.Lines) == 0 || len(body.Lines) > 100 {
		return nil, errBadRequest{fmt.Sprintf("%d lines; expected %s (DELETE removes them all)", len(body.Lines), expected)}
	}
	for i, l := range body.Lines {
		l = strings.TrimSpace(l)
		if err := oneLine(fmt.Sprintf("line %d", i+1), l, expected); err != nil {
			return nil, err
		}
		f := strings.Fields(l)
		if !strings.EqualFold(f[0], "if") || !strings.Contains(strings.ToLower(" "+l+" "), " then ") {
			return nil, errBadRequest{fmt.Sprintf("line %d %q is no conditional line; expected %s", i+1, l, expected)}
		}
		body.Lines[i] = l
	}
	return s.conditionsAfter(ctx, ag, seat, strings.Join(body.Lines, "\n"))
}

func (s *Server) apiClearConditions(ctx context.Context, r *http.Request) (any, error) {
	ag, seat, err := s.authGame(ctx, r, false)
	if err != nil {
		return nil, err
	}
	return s.conditionsAfter(ctx, ag, seat, fmt.Sprintf("conditions clear %d", ag.ID))
}
