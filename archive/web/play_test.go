package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"pbem/archive"
)

// recorder is a Player that keeps the requests it is given and answers
// with res and err: the tests of this package check what the API hands
// on and how it answers each outcome; cmd/pbem's tests play through the
// referee itself.
type recorder struct {
	got []PlayRequest
	res PlayResult
	err error
}

func (p *recorder) Play(ctx context.Context, req PlayRequest) (PlayResult, error) {
	p.got = append(p.got, req)
	return p.res, p.err
}

// setTokens gives the seats of game id the tokens given.
func setTokens(t *testing.T, fx *fixture, id int64, tokens ...string) {
	t.Helper()
	g, err := fx.store.Game(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	for i := range g.Seats {
		g.Seats[i].Token = tokens[i]
	}
	if err := fx.store.Commit(t.Context(), &archive.Change{At: t0, Games: []*archive.Game{g}}); err != nil {
		t.Fatal(err)
	}
}

func send(h http.Handler, method, path, auth, ctype, body string) (int, http.Header, map[string]any) {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var v map[string]any
	json.Unmarshal(rec.Body.Bytes(), &v)
	return rec.Code, rec.Result().Header, v
}

// TestAPIPlayAuth: the key is read as documented (401 missing or
// garbled, 403 another game's or no seat's, 404 for a private game to
// anyone but its players), and a seat's key hands the Player the mail
// command with the seat's address and token.
func TestAPIPlayAuth(t *testing.T) {
	fx := newFixture(t)
	p := &recorder{res: PlayResult{Reply: "You played x (ply 10). Ask bob@example.org"}}
	fx.srv.opts.Player = p
	setTokens(t, fx, fx.castles, "aaaaaaaa", "bbbbbbbb")
	setTokens(t, fx, fx.private, "pppppppp", "qqqqqqqq")
	move := fmt.Sprintf("/api/v1/games/%d/move", fx.castles)
	body := `{"ply": 10, "move": "a1-a2"}`
	for _, tc := range []struct {
		auth string
		code int
		want string
	}{
		{"", 401, "no Authorization header"},
		{"Basic aaaaaaaa", 401, "garbled"},
		{"Bearer aaaa", 401, "garbled"},
		{"Bearer aaaaaaa1", 401, "garbled"}, // 1 is no token letter
		{"Bearer cccccccc", 403, "no player's token"},
		{"Bearer pppppppp", 403, "no player's token"}, // the private game's
		{fmt.Sprintf("Bearer %d.aaaaaaaa", fx.private), 403, "no player's token"},
	} {
		code, h, v := send(fx.srv, "POST", move, tc.auth, "application/json", body)
		if code != tc.code || !strings.Contains(fmt.Sprint(v["error"]), tc.want) {
			t.Errorf("POST %s with %q = %d %v, want %d saying %q", move, tc.auth, code, v, tc.code, tc.want)
		}
		if code == 401 && h.Get("WWW-Authenticate") == "" {
			t.Errorf("POST %s with %q: 401 without WWW-Authenticate", move, tc.auth)
		}
	}
	if len(p.got) != 0 {
		t.Fatalf("refused requests reached the Player: %+v", p.got)
	}
	for _, auth := range []string{"Bearer bbbbbbbb", fmt.Sprintf("Bearer %d.BBBBBBBB", fx.castles)} {
		code, _, v := send(fx.srv, "POST", move, auth, "application/json", body)
		if code != 200 {
			t.Fatalf("POST %s with %q = %d %v, want 200", move, auth, code, v)
		}
		if addrRE.MatchString(fmt.Sprint(v)) || !strings.Contains(fmt.Sprint(v["reply"]), "Ask (address hidden)") {
			t.Errorf("POST %s answers an address: %v", move, v)
		}
	}
	want := PlayRequest{Game: fx.castles, Addr: "p1@example.org", Token: "bbbbbbbb", Command: fmt.Sprintf("move %d a1-a2 #10", fx.castles)}
	if len(p.got) != 2 || p.got[0] != want || p.got[1] != want {
		t.Errorf("the Player got %+v, want twice %+v", p.got, want)
	}

	// The private game: 404 without its players' key, public or not.
	priv := fmt.Sprintf("/api/v1/games/%d", fx.private)
	for _, auth := range []string{"", "Bearer aaaaaaaa", "Bearer zzzzzzzz"} {
		if code, _, _ := send(fx.srv, "GET", priv+"/legal", auth, "", ""); code != 404 {
			t.Errorf("GET %s/legal with %q = %d, want 404", priv, auth, code)
		}
	}
	if code, _, v := send(fx.srv, "GET", priv+"/legal", "Bearer qqqqqqqq", "", ""); code != 200 || v["total"] == nil {
		t.Errorf("GET %s/legal by its player = %d %v, want 200 and the plies", priv, code, v)
	}
	if code, _, v := send(fx.srv, "GET", priv, "Bearer qqqqqqqq", "", ""); code != 200 || v["id"] != fmt.Sprint(fx.private) {
		t.Errorf("GET %s by its player = %d %v, want 200 and the game", priv, code, v)
	}
	if code, _, _ := send(fx.srv, "GET", priv, "Bearer zzzzzzzz", "", ""); code != 404 {
		t.Errorf("GET %s by another key = %d, want 404", priv, code)
	}
	// Without a key, or with a garbled one, a private game and one that
	// does not exist answer alike.
	for _, path := range []string{priv + "/move", "/api/v1/games/99999/move"} {
		for _, auth := range []string{"", "Bearer x"} {
			if code, _, _ := send(fx.srv, "POST", path, auth, "application/json", body); code != 404 {
				t.Errorf("POST %s with %q = %d, want 404", path, auth, code)
			}
		}
	}
}

// TestAPIPlayBodies: bodies are strict JSON within MaxRequestBody, and
// each refusal says what was expected.
func TestAPIPlayBodies(t *testing.T) {
	fx := newFixture(t)
	p := &recorder{}
	fx.srv.opts.Player = p
	setTokens(t, fx, fx.castles, "aaaaaaaa", "bbbbbbbb")
	g := fmt.Sprintf("/api/v1/games/%d", fx.castles)
	for _, tc := range []struct {
		path, ctype, body string
		code              int
		want              string
	}{
		{"/move", "application/json", `{"ply": 1, "move": "a1", "say": "hi"}`, 400, `unknown field "say"`},
		{"/move", "application/json", `{"ply": 1}`, 400, "both required"},
		{"/move", "application/json", `{"ply": 0, "move": "a1"}`, 400, "from 1 on"},
		{"/move", "application/json", `{"ply": "1", "move": "a1"}`, 400, "expected"},
		{"/move", "application/json", `{"ply": 1, "move": "a1\nresign"}`, 400, "one line"},
		{"/move", "application/json", `{"ply": 1, "move": "a1"} {}`, 400, "more than one JSON value"},
		{"/move", "text/plain", `{"ply": 1, "move": "a1"}`, 400, "expected application/json"},
		{"/move", "application/json", `{"ply": 1, "move": "` + strings.Repeat("a", MaxRequestBody) + `"}`, 413, "larger than"},
		{"/offer", "application/json", `{"offer": "peace"}`, 400, `expected {"offer": "draw"}`},
		{"/answer", "application/json", `{"offer": "draw", "answer": "maybe"}`, 400, "accept"},
		{"/resign", "application/json", `{"resign": false}`, 400, "must be true"},
		{"/conditions", "application/json", `{"lines": ["e4 e5"]}`, 400, "no conditional line"},
		{"/conditions", "application/json", `{"lines": []}`, 400, "DELETE"},
	} {
		method := "POST"
		if tc.path == "/conditions" {
			method = "PUT"
		}
		code, _, v := send(fx.srv, method, g+tc.path, "Bearer bbbbbbbb", tc.ctype, tc.body)
		if code != tc.code || !strings.Contains(fmt.Sprint(v["error"]), tc.want) {
			t.Errorf("%s %s %.60s = %d %v, want %d saying %q", method, tc.path, tc.body, code, v["error"], tc.code, tc.want)
		}
	}
	if len(p.got) != 0 {
		t.Errorf("refused bodies reached the Player: %+v", p.got)
	}
	for _, tc := range []struct{ path, body, cmd string }{
		{"/offer", `{"offer": "undo"}`, "undo"},
		{"/answer", `{"offer": "draw", "answer": "decline"}`, "decline draw"},
		{"/answer", `{"offer": "invitation", "answer": "accept"}`, "accept"},
		{"/resign", `{"resign": true}`, "resign"},
	} {
		p.got = nil
		send(fx.srv, "POST", g+tc.path, "Bearer bbbbbbbb", "application/json", tc.body)
		if len(p.got) != 1 || p.got[0].Command != tc.cmd {
			t.Errorf("POST %s %s hands on %+v, want the command %q", tc.path, tc.body, p.got, tc.cmd)
		}
	}
	p.got = nil
	send(fx.srv, "PUT", g+"/conditions", "Bearer bbbbbbbb", "", `{"lines": [" if a1 then a2 ", "if b1 b2 then b3"]}`)
	if len(p.got) != 1 || p.got[0].Command != "if a1 then a2\nif b1 b2 then b3" {
		t.Errorf("PUT conditions hands on %+v, want the two lines", p.got)
	}
	p.got = nil
	send(fx.srv, "DELETE", g+"/conditions", "Bearer bbbbbbbb", "", "")
	if len(p.got) != 1 || p.got[0].Command != fmt.Sprintf("conditions clear %d", fx.castles) {
		t.Errorf("DELETE conditions hands on %+v", p.got)
	}
}

// TestAPIPlayOutcomes: each outcome of the Player has its status.
func TestAPIPlayOutcomes(t *testing.T) {
	fx := newFixture(t)
	setTokens(t, fx, fx.castles, "aaaaaaaa", "bbbbbbbb")
	fx.srv.opts.Logger = slog.New(slog.DiscardHandler) // the store failure is logged
	move := fmt.Sprintf("/api/v1/games/%d/move", fx.castles)
	for _, tc := range []struct {
		name  string
		p     Player
		code  int
		want  string
		retry bool
	}{
		{"no player", nil, 503, "read-only", false},
		{"not leader", &recorder{err: ErrNotLeader}, 503, "another one leads", true},
		{"store down", &recorder{err: errors.New("disk full")}, 500, "internal error", false},
		{"stale", &recorder{res: PlayResult{Refused: "Stale move", Stale: true, Next: 11}}, 409, "Stale move", false},
		{"illegal", &recorder{res: PlayResult{Refused: "a1-a2 is illegal here", Expected: "a ply"}}, 422, "illegal", false},
		{"limited", &recorder{res: PlayResult{LimitedUntil: t0.Add(20 * time.Minute)}}, 429, "too many requests", true},
		{"unread", &recorder{res: PlayResult{Unread: true}}, 403, "does not read", false},
	} {
		fx.srv.opts.Player = tc.p
		code, h, v := send(fx.srv, "POST", move, "Bearer bbbbbbbb", "application/json", `{"ply": 10, "move": "a1-a2"}`)
		if code != tc.code || !strings.Contains(fmt.Sprint(v["error"]), tc.want) || (h.Get("Retry-After") != "") != tc.retry {
			t.Errorf("%s: %d %v Retry-After %q, want %d saying %q (Retry-After: %v)", tc.name, code, v, h.Get("Retry-After"), tc.code, tc.want, tc.retry)
		}
		if tc.name == "stale" && v["ply"] != float64(11) {
			t.Errorf("stale: ply %v, want 11", v["ply"])
		}
		if tc.name == "limited" && h.Get("Retry-After") != "1200" {
			t.Errorf("limited: Retry-After %q, want 1200 (20 minutes to the window's end)", h.Get("Retry-After"))
		}
	}
}

// TestAPIKeyGuesses: a client that sent MaxKeyFailures wrong keys within
// the window is refused (429, Retry-After) whatever key it sends next,
// until the window ends; another client is not.
func TestAPIKeyGuesses(t *testing.T) {
	fx := newFixture(t)
	now := t0
	fx.srv.opts.Now = func() time.Time { return now }
	fx.srv.opts.Player = &recorder{}
	setTokens(t, fx, fx.castles, "aaaaaaaa", "bbbbbbbb")
	cond := fmt.Sprintf("/api/v1/games/%d/conditions", fx.castles)
	get := func(addr, key string) (int, http.Header) {
		req := httptest.NewRequest("GET", cond, nil)
		req.RemoteAddr = addr
		req.Header.Set("Authorization", "Bearer "+key)
		rec := httptest.NewRecorder()
		fx.srv.ServeHTTP(rec, req)
		return rec.Code, rec.Result().Header
	}
	for i := range MaxKeyFailures {
		if code, _ := get("198.51.100.7:4000", fmt.Sprintf("cccccc%c%c", 'a'+i/26, 'a'+i%26)); code != 403 {
			t.Fatalf("wrong key %d = %d, want 403", i, code)
		}
	}
	code, h := get("198.51.100.7:4001", "bbbbbbbb")
	if code != 429 || h.Get("Retry-After") != "3600" {
		t.Errorf("the right key after %d wrong ones = %d (Retry-After %q), want 429 after 3600 s", MaxKeyFailures, code, h.Get("Retry-After"))
	}
	if code, _ := get("203.0.113.9:4000", "bbbbbbbb"); code != 200 {
		t.Errorf("another client = %d, want 200", code)
	}
	now = now.Add(KeyFailureWindow)
	if code, _ := get("198.51.100.7:4002", "bbbbbbbb"); code != 200 {
		t.Errorf("after the window = %d, want 200", code)
	}
}
