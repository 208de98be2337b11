package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/stretchr/testify/require"

	"pbem/archive"
	"pbem/archive/web"
	"pbem/engine"
	"pbem/notation"
	"pbem/referee"
)

// apiRig is the referee and the web API over one store, joined by
// webPlayer as pbem serve joins them, with an outbox the test reads.
type apiRig struct {
	t      *testing.T
	s      *server
	h      http.Handler
	router routers.Router
	hit    map[string]int
	n      int
	// mails are the outbox's mails not read yet, by recipient.
	mails map[string][]archive.Outgoing
}

func newAPIRig(t *testing.T, ro *referee.Options) *apiRig {
	return newAPIRigAt(t, ro, nil)
}

// newAPIRigAt is newAPIRig on a clock (nil: the system's).
func newAPIRigAt(t *testing.T, ro *referee.Options, now func() time.Time) *apiRig {
	t.Helper()
	ctx := context.Background()
	store, err := archive.OpenStore(ctx, t.TempDir(), &archive.Options{Now: now})
	require.NoError(t, err)
	t.Cleanup(func() { store.Close() })
	if ro == nil {
		ro = &referee.Options{}
	}
	ro.Address = "referee@pbem.local"
	ref, err := referee.New(store, ro)
	require.NoError(t, err)
	s := &server{store: store, ref: ref, log: slog.New(slog.DiscardHandler)}
	h, err := web.New(store, &web.Options{Lookup: referee.Lookup, Games: catalogIDs(), Private: privateGame, Player: webPlayer{s}, Now: now})
	require.NoError(t, err)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/v1/openapi.json", nil))
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(rec.Body.Bytes())
	require.NoError(t, err)
	require.NoError(t, doc.Validate(loader.Context))
	router, err := legacy.NewRouter(doc)
	require.NoError(t, err)
	return &apiRig{t: t, s: s, h: h, router: router, hit: map[string]int{}, mails: map[string][]archive.Outgoing{}}
}

// mail hands the referee a mail from addr to the game's reply address
// (with the sender's token), as the poller would.
func (r *apiRig) mail(addr string, game int64, body string) {
	r.t.Helper()
	r.n++
	to := "referee@pbem.local"
	if game > 0 {
		to = fmt.Sprintf("referee+%d.%s@pbem.local", game, r.token(game, addr))
	}
	require.NoError(r.t, r.s.ref.Handle(context.Background(), referee.Request{From: referee.Address{Addr: addr}, To: to, Body: body,
		MessageID: fmt.Sprintf("mail-%d@test", r.n), Verdict: referee.VerdictPass}))
}

func (r *apiRig) token(game int64, addr string) string {
	r.t.Helper()
	g, err := r.s.store.Game(context.Background(), game)
	require.NoError(r.t, err)
	for _, st := range g.Seats {
		if st.Player.Addr == addr {
			return st.Token
		}
	}
	r.t.Fatalf("%s has no seat in game %d", addr, game)
	return ""
}

// drain reads the outbox into r.mails and marks it sent.
func (r *apiRig) drain() {
	r.t.Helper()
	ctx := context.Background()
	due, err := r.s.store.Due(ctx, time.Now().Add(24*time.Hour), 1000)
	require.NoError(r.t, err)
	for _, o := range due {
		require.NotEmpty(r.t, o.AutoSubmitted, "every mail is Auto-Submitted")
		r.mails[o.To[0].Addr] = append(r.mails[o.To[0].Addr], o)
		require.NoError(r.t, r.s.store.Sent(ctx, o.ID))
	}
}

// take returns and forgets the texts of the mails to addr.
func (r *apiRig) take(addr string) []string {
	r.drain()
	var out []string
	for _, m := range r.mails[addr] {
		out = append(out, strings.Join(strings.Fields(m.Text), " "))
	}
	delete(r.mails, addr)
	return out
}

// do makes an API request and checks the exchange against openapi.json.
func (r *apiRig) do(method, path, token, body string) (int, http.Header, map[string]any) {
	r.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	r.h.ServeHTTP(rec, req)
	raw := rec.Body.Bytes()
	if regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+\.[A-Za-z]{2,}`).Match(raw) {
		r.t.Errorf("%s %s shows an address:\n%s", method, path, raw)
	}
	vreq := httptest.NewRequest(method, path, bytes.NewReader([]byte(body)))
	if body != "" {
		vreq.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		vreq.Header.Set("Authorization", "Bearer "+token)
	}
	route, params, err := r.router.FindRoute(vreq)
	require.NoError(r.t, err, "%s %s: no path of openapi.json", method, path)
	r.hit[method+" "+route.Path]++
	ctx := context.Background()
	opts := &openapi3filter.Options{IncludeResponseStatus: true, AuthenticationFunc: bearerAuth}
	in := &openapi3filter.RequestValidationInput{Request: vreq, PathParams: params, Route: route, Options: opts}
	reqErr := openapi3filter.ValidateRequest(ctx, in)
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: rec.Code, Header: rec.Result().Header, Options: opts}
	out.SetBodyBytes(raw)
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		r.t.Errorf("%s %s = %d: the response does not match openapi.json: %v\n%s", method, path, rec.Code, err, raw)
	}
	if rec.Code < 400 && reqErr != nil {
		r.t.Errorf("%s %s = %d, but openapi.json refuses the request: %v", method, path, rec.Code, reqErr)
	}
	var v map[string]any
	require.NoError(r.t, json.Unmarshal(raw, &v), "%s %s: %s", method, path, raw)
	return rec.Code, rec.Result().Header, v
}

// newGame has alice (by mail) invite bob to a game of kind, alice first;
// both accept, bob by the API. It returns the game's id.
func (r *apiRig) newGame(kind, opts string) int64 {
	r.t.Helper()
	r.mail("alice@pbem.local", 0, fmt.Sprintf("new %s with bob@pbem.local first=alice@pbem.local%s", kind, opts))
	gs, err := r.s.store.ActiveGamesOf(context.Background(), "alice@pbem.local")
	require.NoError(r.t, err)
	var id int64
	for _, g := range gs {
		id = max(id, g.ID)
	}
	r.mail("alice@pbem.local", id, "accept")
	code, _, v := r.do("POST", fmt.Sprintf("/api/v1/games/%d/answer", id), r.token(id, "bob@pbem.local"), `{"offer": "invitation", "answer": "accept"}`)
	require.Equal(r.t, 200, code, "%v", v)
	r.drain()
	clear(r.mails)
	return id
}

// TestAPIPlaysEveryGame: a full game of each kind, alice by mail and bob
// by the API, through the real referee and store: bob's plies come from
// the legal list, alice gets every one of them by mail, bob's replies are
// answered in the response and never mailed; the game ends when bob
// resigns after 30 plies or earlier by its rules.
func TestAPIPlaysEveryGame(t *testing.T) {
	r := newAPIRig(t, nil)
	rnd := rand.New(rand.NewPCG(47, 2))
	for _, kind := range []string{"castles", "ziggurat", "elevation", "ziggurat43", "rpp"} {
		t.Run(kind, func(t *testing.T) {
			r.t = t
			id := r.newGame(kind, "")
			bob := fmt.Sprintf("%d.%s", id, r.token(id, "bob@pbem.local"))
			gp := fmt.Sprintf("/api/v1/games/%d", id)
			for ply := 1; ; ply++ {
				code, _, g := r.do("GET", gp, "", "")
				require.Equal(t, 200, code)
				if g["status"] != archive.Playing {
					break
				}
				require.Len(t, g["plies"], ply-1)
				code, _, legal := r.do("GET", gp+"/legal", "", "")
				require.Equal(t, 200, code, "%v", legal)
				require.EqualValues(t, ply, legal["ply"])
				plies := legal["plies"].([]any)
				require.NotEmpty(t, plies)
				move := plies[rnd.IntN(len(plies))].(string)
				sides := g["sides"].([]any)
				bobsTurn := g["to_move"] == sides[1].(map[string]any)["side"]
				if bobsTurn && ply > 30 {
					code, _, v := r.do("POST", gp+"/resign", bob, `{"resign": true}`)
					require.Equal(t, 200, code, "%v", v)
					require.Equal(t, archive.Over, v["game"].(map[string]any)["status"])
					m := r.take("alice@pbem.local")
					require.Len(t, m, 1)
					require.Contains(t, m[0], "resign")
					require.Empty(t, r.take("bob@pbem.local"), "bob's reply is in the response")
					break
				}
				if !bobsTurn {
					r.mail("alice@pbem.local", id, move)
					require.Len(t, r.take("alice@pbem.local"), 1, "alice's reply")
					m := r.take("bob@pbem.local")
					require.Len(t, m, 1, "bob is told of alice's ply by mail too")
					require.Contains(t, m[0], fmt.Sprintf("(ply %d)", ply))
					continue
				}
				code, _, v := r.do("POST", gp+"/move", bob, fmt.Sprintf(`{"ply": %d, "move": %q}`, ply, move))
				require.Equal(t, 200, code, "%v", v)
				require.Contains(t, strings.Join(strings.Fields(v["reply"].(string)), " "), fmt.Sprintf("You played %s (ply %d).", move, ply))
				require.Len(t, v["game"].(map[string]any)["plies"], ply)
				m := r.take("alice@pbem.local")
				require.Len(t, m, 1, "alice gets bob's ply by mail")
				require.Contains(t, m[0], fmt.Sprintf("played %s (ply %d)", move, ply))
				require.Empty(t, r.take("bob@pbem.local"), "bob's reply is in the response, not mailed")
			}
			code, _, g := r.do("GET", gp, "", "")
			require.Equal(t, 200, code)
			require.Equal(t, archive.Over, g["status"])
			require.NotEmpty(t, g["result"])
		})
	}
}

// TestAPIRefusals: stale plies (409 with the ply expected), missing,
// garbled and foreign tokens (401, 403), private games (404 to others,
// shown to their players), strict bodies (400), offers answered by mail,
// conditional lines set by the API and answered when the mail player
// plies, and the rate limit (429 with Retry-After); every exchange
// validates against openapi.json.
func TestAPIRefusals(t *testing.T) {
	r := newAPIRig(t, &referee.Options{TokenRateLimit: 12})
	id := r.newGame("ziggurat", "")
	other := r.newGame("castles", " private")
	bob := fmt.Sprintf("%d.%s", id, r.token(id, "bob@pbem.local"))
	gp := fmt.Sprintf("/api/v1/games/%d", id)
	norm := func(v any) string { s, _ := v.(string); return strings.Join(strings.Fields(s), " ") }

	// alice (first) plies by mail; bob's stale ply is refused.
	_, _, legal := r.do("GET", gp+"/legal", "", "")
	r.mail("alice@pbem.local", id, legal["plies"].([]any)[0].(string))
	r.take("bob@pbem.local")
	code, _, v := r.do("POST", gp+"/move", bob, `{"ply": 1, "move": "Qf1-e2"}`)
	require.Equal(t, 409, code, "%v", v)
	require.EqualValues(t, 2, v["ply"])
	require.Contains(t, v["error"], "Stale move")

	// Authorization.
	code, h, _ := r.do("POST", gp+"/move", "", `{"ply": 2, "move": "x"}`)
	require.Equal(t, 401, code)
	require.Contains(t, h.Get("WWW-Authenticate"), "Bearer")
	code, _, _ = r.do("POST", gp+"/move", "not a token!", `{"ply": 2, "move": "x"}`)
	require.Equal(t, 401, code)
	foreign := r.token(other, "bob@pbem.local") // bob's token of the other game
	code, _, v = r.do("POST", gp+"/move", foreign, `{"ply": 2, "move": "x"}`)
	require.Equal(t, 403, code, "%v", v)
	code, _, _ = r.do("GET", gp+"/conditions", fmt.Sprintf("%d.%s", other, foreign), "")
	require.Equal(t, 403, code, "a token for game %d is no key to game %d", other, id)

	// The private game: 404 to the public and to a token of another
	// game, its own player sees it.
	op := fmt.Sprintf("/api/v1/games/%d", other)
	for _, tok := range []string{"", bob} {
		code, _, _ = r.do("GET", op+"/legal", tok, "")
		require.Equal(t, 404, code, "token %q", tok)
	}
	code, _, _ = r.do("POST", op+"/offer", bob, `{"offer": "draw"}`)
	require.Equal(t, 404, code)
	code, _, v = r.do("GET", op+"/legal", foreign, "")
	require.Equal(t, 200, code, "%v", v)
	code, _, v = r.do("GET", "/api/v1/me/games", bob, "")
	require.Equal(t, 200, code, "%v", v)
	require.Len(t, v["games"], 2, "bob's games, the private one too")
	code, _, _ = r.do("GET", "/api/v1/me/games", r.token(id, "bob@pbem.local"), "")
	require.Equal(t, 401, code, "me/games needs GAMEID.TOKEN")

	// Strict bodies.
	code, _, v = r.do("POST", gp+"/move", bob, `{"ply": 2, "move": "Qf1-e2", "extra": 1}`)
	require.Equal(t, 400, code)
	require.Contains(t, v["error"], "expected")
	code, _, _ = r.do("POST", gp+"/move", bob, `{"ply": 2, "move": "a\nresign"}`)
	require.Equal(t, 400, code, "one line only")
	code, _, _ = r.do("POST", gp+"/offer", bob, `{"offer": "peace"}`)
	require.Equal(t, 400, code)

	// An illegal ply: 422, what was expected.
	code, _, v = r.do("POST", gp+"/move", bob, `{"ply": 2, "move": "Qa1-h8"}`)
	require.Equal(t, 422, code, "%v", v)
	require.NotEmpty(t, v["expected"])

	// bob plies, offers a draw; alice declines by mail.
	_, _, legal = r.do("GET", gp+"/legal", "", "")
	code, _, v = r.do("POST", gp+"/move", bob, fmt.Sprintf(`{"ply": 2, "move": %q}`, legal["plies"].([]any)[0]))
	require.Equal(t, 200, code, "%v", v)
	r.take("alice@pbem.local")
	code, _, v = r.do("POST", gp+"/offer", bob, `{"offer": "draw"}`)
	require.Equal(t, 200, code, "%v", v)
	require.Contains(t, norm(v["reply"]), "You offered a draw")
	m := r.take("alice@pbem.local")
	require.Len(t, m, 1)
	require.Contains(t, m[0], "offers a draw")
	r.mail("alice@pbem.local", id, "decline draw")
	require.Contains(t, strings.Join(r.take("bob@pbem.local"), ""), "declined the draw offer")
	r.take("alice@pbem.local")

	// Conditional lines: bob foresees alice's ply 3 and answers it.
	_, _, g := r.do("GET", gp, "", "")
	codec, err := referee.Lookup("ziggurat")
	require.NoError(t, err)
	st := mustReplay(t, codec, g["plies"].([]any))
	a := st.Legal()[0]
	aText := codec.Encode(st, a)
	st2, err := st.Apply(a)
	require.NoError(t, err)
	bText := codec.Encode(st2, st2.Legal()[0])
	code, _, v = r.do("PUT", gp+"/conditions", bob, fmt.Sprintf(`{"lines": [%q]}`, "if "+aText+" then "+bText))
	require.Equal(t, 200, code, "%v", v)
	require.Len(t, v["conditions"].(map[string]any)["lines"], 1)
	code, _, v = r.do("GET", gp+"/conditions", bob, "")
	require.Equal(t, 200, code)
	require.Equal(t, []any{[]any{aText, bText}}, v["lines"])
	r.mail("alice@pbem.local", id, aText)
	require.Contains(t, strings.Join(r.take("alice@pbem.local"), " "), "answered "+bText+" (ply 4), a conditional move", "bob's conditional answer, mailed to alice")
	require.Contains(t, strings.Join(r.take("bob@pbem.local"), " "), "Your conditional line answered", "bob is told by mail, as ever")
	_, _, g = r.do("GET", gp, "", "")
	require.Len(t, g["plies"], 4)
	code, _, v = r.do("DELETE", gp+"/conditions", bob, "")
	require.Equal(t, 200, code, "%v", v)
	require.Empty(t, v["conditions"].(map[string]any)["lines"])
	code, _, v = r.do("POST", gp+"/answer", bob, `{"offer": "undo", "answer": "accept"}`)
	require.Equal(t, 422, code, "no undo to accept: %v", v)

	// A body over 64 KiB: 413, nothing read.
	code, _, v = r.do("PUT", gp+"/conditions", bob, `{"lines": ["`+strings.Repeat("x", web.MaxRequestBody)+`"]}`)
	require.Equal(t, 413, code, "%v", v)

	// An instance that does not lead (PostgreSQL, another one holds the
	// lease) writes nothing: 503, try again.
	r.s.elect = newElector(r.s.store, r.s.log)
	code, h, v = r.do("POST", gp+"/offer", bob, `{"offer": "draw"}`)
	r.s.elect = nil
	require.Equal(t, 503, code, "%v", v)
	require.NotEmpty(t, h.Get("Retry-After"))
	require.Empty(t, r.take("alice@pbem.local"), "nothing was done")

	// The rate limit: the mail window of a game's token (12 here).
	var last int
	for range 12 {
		if last, _, _ = r.do("POST", gp+"/offer", bob, `{"offer": "undo"}`); last == 429 {
			break
		}
	}
	require.Equal(t, 429, last)
	code, h, v = r.do("POST", gp+"/resign", bob, `{"resign": true}`)
	require.Equal(t, 429, code, "%v", v)
	n, err := strconv.Atoi(h.Get("Retry-After"))
	require.NoError(t, err)
	require.True(t, n > 0 && n <= 3600, "Retry-After %d", n)
	require.Empty(t, r.take("bob@pbem.local"), "an API caller over the limit is answered in the response only")

	for _, p := range []string{"GET /api/v1/me/games", "GET /api/v1/games/{id}/legal", "POST /api/v1/games/{id}/move", "POST /api/v1/games/{id}/offer",
		"POST /api/v1/games/{id}/answer", "POST /api/v1/games/{id}/resign", "GET /api/v1/games/{id}/conditions",
		"PUT /api/v1/games/{id}/conditions", "DELETE /api/v1/games/{id}/conditions"} {
		require.NotZero(t, r.hit[p], "no test requests %s", p)
	}
}

// mustReplay is the position after plies of a game of codec.
func mustReplay(t *testing.T, codec notation.Codec, plies []any) engine.State {
	t.Helper()
	st, err := codec.Rules().Start(engine.Options{})
	require.NoError(t, err)
	for _, p := range plies {
		m, err := codec.Decode(st, p.(string))
		require.NoError(t, err)
		st, err = st.Apply(m)
		require.NoError(t, err)
	}
	return st
}

var updateAPI = flag.Bool("update-api", false, "rewrite testdata/api/session.txt and its copy in docs/API.md")

// TestAPISession plays a short ziggurat game, bob through the API as curl
// would, alice by mail, and writes the exchange (requests as curl
// commands, the responses as served) as testdata/api/session.txt, which
// docs/API.md quotes: the golden and the documentation must both match
// the run.
func TestAPISession(t *testing.T) {
	t0 := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	r := newAPIRigAt(t, &referee.Options{Clock: &fixedClock{t0}, Rand: rand.NewChaCha8([32]byte{47})}, func() time.Time { return t0 })
	id := r.newGame("ziggurat", "")
	bob := fmt.Sprintf("%d.%s", id, r.token(id, "bob@pbem.local"))
	var b strings.Builder
	curl := func(method, path, body string, auth bool) map[string]any {
		t.Helper()
		cmd := "$ curl -s"
		if method != "GET" {
			cmd += " -X " + method
		}
		token := ""
		if auth {
			token = bob
			cmd += " -H 'Authorization: Bearer " + bob + "'"
		}
		if body != "" {
			cmd += " -d '" + body + "'"
		}
		cmd += " https://pbem.example.org" + path
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		if auth {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		r.h.ServeHTTP(rec, req)
		fmt.Fprintf(&b, "%s\n(%d)\n%s\n", cmd, rec.Code, strings.TrimRight(rec.Body.String(), "\n"))
		var v map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &v))
		return v
	}
	mail := func(text string) {
		fmt.Fprintf(&b, "# alice replies to the game's mail: %s\n\n", text)
		r.mail("alice@pbem.local", id, text)
	}
	gp := fmt.Sprintf("/api/v1/games/%d", id)
	curl("GET", "/api/v1/me/games", "", true)
	b.WriteString("\n")
	mail("Qa1-b2")
	legal := curl("GET", gp+"/legal", "", false)
	b.WriteString("\n")
	curl("POST", gp+"/move", fmt.Sprintf(`{"ply": 2, "move": %q}`, legal["plies"].([]any)[0]), true)
	b.WriteString("\n")
	curl("POST", gp+"/move", `{"ply": 2, "move": "Qf6-e5"}`, true)
	b.WriteString("\n")
	curl("POST", gp+"/offer", `{"offer": "draw"}`, true)
	b.WriteString("\n")
	mail("accept draw")
	curl("GET", gp, "", false)
	got := b.String()

	golden := "testdata/api/session.txt"
	doc := "../../docs/API.md"
	docText, err := os.ReadFile(doc)
	require.NoError(t, err)
	const begin, end = "<!-- session: cmd/pbem/testdata/api/session.txt -->\n```\n", "```\n<!-- end session -->"
	i, j := bytes.Index(docText, []byte(begin)), bytes.Index(docText, []byte(end))
	require.True(t, i >= 0 && j > i, "docs/API.md has no session block between %q and %q", begin, end)
	if *updateAPI {
		require.NoError(t, os.MkdirAll("testdata/api", 0o755))
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
		out := append(append(append([]byte{}, docText[:i+len(begin)]...), got...), docText[j:]...)
		require.NoError(t, os.WriteFile(doc, out, 0o644))
		return
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run with -update-api to write it")
	require.Equal(t, string(want), got, "the session changed; if meant, run go test ./cmd/pbem -run TestAPISession -update-api and review the diff")
	require.Equal(t, string(want), string(docText[i+len(begin):j]), "docs/API.md quotes another session than testdata/api/session.txt")
}

// bearerAuth checks a request against the document's bearer scheme: the
// request carries Authorization: Bearer and a key.
func bearerAuth(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	if in.SecurityScheme.Type != "http" || in.SecurityScheme.Scheme != "bearer" {
		return fmt.Errorf("unknown security scheme %s", in.SecuritySchemeName)
	}
	scheme, key, _ := strings.Cut(in.RequestValidationInput.Request.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") || key == "" {
		return fmt.Errorf("no Authorization: Bearer KEY")
	}
	return nil
}
