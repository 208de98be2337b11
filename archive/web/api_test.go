package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"pbem/archive"
	"pbem/engine"
)

// apiSpec is the API's OpenAPI document, loaded and validated once per
// test, with a router over its paths.
type apiSpec struct {
	doc    *openapi3.T
	router routers.Router
	// hit counts the requests of the test per path template.
	hit map[string]int
}

func loadSpec(t *testing.T) *apiSpec {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(openAPI)
	if err != nil {
		t.Fatalf("openapi.json does not load: %v", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("openapi.json is not a valid OpenAPI 3 document: %v", err)
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &apiSpec{doc: doc, router: router, hit: map[string]int{}}
}

// get requests path of h and checks the exchange against the document:
// the request is valid exactly when validRequest, the response's status
// is one the document declares for the path, and its body and headers
// match the declared response. It returns the status and body.
func (sp *apiSpec) get(t *testing.T, h http.Handler, path string, validRequest bool) (int, []byte) {
	t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	body, _ := io.ReadAll(rec.Result().Body)
	route, params, err := sp.router.FindRoute(req)
	if err != nil {
		t.Fatalf("GET %s: no path of openapi.json: %v", path, err)
	}
	sp.hit[route.Path]++
	ctx := context.Background()
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, AuthenticationFunc: bearerAuth}}
	err = openapi3filter.ValidateRequest(ctx, in)
	switch {
	case validRequest && err != nil:
		t.Errorf("GET %s: the document refuses the request: %v", path, err)
	case !validRequest && err == nil:
		t.Errorf("GET %s: the document accepts a request the test means to be wrong", path)
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: rec.Code, Header: rec.Result().Header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, AuthenticationFunc: bearerAuth}}
	out.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		t.Errorf("GET %s = %d: the response does not match openapi.json: %v\n%s", path, rec.Code, err, body)
	}
	return rec.Code, body
}

// decode reads a JSON body into v.
func decode(t *testing.T, path string, body []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v\n%s", path, err, body)
	}
}

func ids(gs []APIGame) []string {
	var out []string
	for _, g := range gs {
		out = append(out, g.ID)
	}
	return out
}

// TestAPI: each endpoint answers as documented, with the games, events,
// players and ratings the pages show; every exchange validates against
// openapi.json and every documented path is requested.
func TestAPI(t *testing.T) {
	fx := newFixture(t)
	sp := loadSpec(t)
	zig, spring := fmt.Sprint(fx.ziggurat), fmt.Sprintf("a%d", fx.entry)
	list := func(path string) []string {
		t.Helper()
		code, body := sp.get(t, fx.srv, path, true)
		if code != http.StatusOK {
			t.Fatalf("GET %s = %d, want 200:\n%s", path, code, body)
		}
		var l APIGameList
		decode(t, path, body, &l)
		if l.Total < len(l.Games) {
			t.Errorf("GET %s: total %d below the %d games listed", path, l.Total, len(l.Games))
		}
		return ids(l.Games)
	}
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"/api/v1/games", []string{spring, zig}}, // the newest archived first
		{"/api/v1/games?player=alice", []string{zig}},
		{"/api/v1/games?game=elevation", []string{spring}},
		{"/api/v1/games?event=spring%20cup", []string{spring}},
		{"/api/v1/games?since=2026-06-01", []string{zig}},
		{"/api/v1/games?q=autumn", []string{zig}},
		{"/api/v1/games?status=playing", []string{fmt.Sprint(fx.rpp), fmt.Sprint(fx.castles)}},
		{"/api/v1/games?status=playing&player=car", []string{fmt.Sprint(fx.rpp)}},
		{"/api/v1/games?status=playing&game=castles&event=autumn%20cup", []string{fmt.Sprint(fx.castles)}},
		{"/api/v1/games?status=playing&player=mallory", nil},
	} {
		if got := list(tc.path); !slices.Equal(got, tc.want) {
			t.Errorf("GET %s lists %q, want %q", tc.path, got, tc.want)
		}
	}

	// By position: the final position of the ziggurat game, the game
	// found from the text alone.
	zg, err := fx.store.Game(t.Context(), fx.ziggurat)
	if err != nil {
		t.Fatal(err)
	}
	zv := &game{Ref: zg, Record: zg.Record}
	fx.srv.check(zv)
	text, _, ok := engine.Position(zv.Checked.Lines[zv.plies()].State())
	if !ok {
		t.Fatal("ziggurat has no position text")
	}
	if got, p := list("/api/v1/games?position="+url.QueryEscape(text)), "position"; !slices.Equal(got, []string{zig}) {
		t.Errorf("GET by %s lists %q, want %q", p, got, []string{zig})
	}

	// One game: its sides, plies, position, board and record.
	path := "/api/v1/games/" + fmt.Sprint(fx.castles)
	code, body := sp.get(t, fx.srv, path, true)
	if code != http.StatusOK {
		t.Fatalf("GET %s = %d:\n%s", path, code, body)
	}
	var d APIGameDetail
	decode(t, path, body, &d)
	g, err := fx.store.Game(t.Context(), fx.castles)
	if err != nil {
		t.Fatal(err)
	}
	gv := &game{Ref: g, Record: g.Record}
	fx.srv.check(gv)
	st := gv.Checked.Lines[gv.plies()].State()
	if d.Status != archive.Playing || len(d.Plies) != gv.plies() || d.Board != st.Render(-1) {
		t.Errorf("GET %s: status %q, %d plies, board\n%s\nwant playing, %d plies, board\n%s", path, d.Status, len(d.Plies), d.Board, gv.plies(), st.Render(-1))
	}
	if want := st.Sides()[st.ToMove()]; d.ToMove != want || d.Deadline != g.Deadline.UTC().Format(time.RFC3339) {
		t.Errorf("GET %s: to move %q by %q, want %q by %s", path, d.ToMove, d.Deadline, want, g.Deadline.UTC().Format(time.RFC3339))
	}
	if len(d.Sides) != 2 || d.Sides[0].Player != "Alice" || d.Sides[1].Player != "p1" {
		t.Errorf("GET %s: sides %+v, want Alice and p1 (the address's local part, never the address)", path, d.Sides)
	}
	if regexp.MustCompile(`[a-z0-9]@[a-z]`).Match(body) {
		t.Errorf("GET %s shows an address:\n%s", path, body)
	}
	path = "/api/v1/games/" + spring
	code, body = sp.get(t, fx.srv, path, true)
	decode(t, path, body, &d)
	if code != http.StatusOK || d.Status != archive.Over || d.Result == "" || d.ID != spring || !strings.Contains(d.Record, "Spring Cup") {
		t.Errorf("GET %s = %d %+v, want the imported game, over, with its result and record", path, code, d)
	}

	// Events, players, ratings.
	path = "/api/v1/events/Autumn%20Cup"
	code, body = sp.get(t, fx.srv, path, true)
	var ev APIEvent
	decode(t, path, body, &ev)
	if code != http.StatusOK || ev.Games != 1 || len(ev.Standings) != 2 || ev.Standings[0].Rank != 1 || !slices.Equal(ids(ev.List.Games), []string{zig}) {
		t.Errorf("GET %s = %d %+v, want one game and two players ranked", path, code, ev)
	}
	if s := ev.Standings; len(s) == 2 && s[0].Score+s[1].Score != 1 {
		t.Errorf("GET %s: scores %v and %v, want one point between them", path, s[0].Score, s[1].Score)
	}
	path = "/api/v1/players/Alice"
	code, body = sp.get(t, fx.srv, path, true)
	var pl APIPlayer
	decode(t, path, body, &pl)
	if code != http.StatusOK || pl.Name != "Alice" || len(pl.Playing) != 2 || !slices.Equal(ids(pl.Finished), []string{zig}) || len(pl.Ratings) != 1 {
		t.Errorf("GET %s = %d %+v, want Alice in 2 games under way, 1 finished, 1 rating", path, code, pl)
	}
	path = "/api/v1/ratings/ziggurat"
	code, body = sp.get(t, fx.srv, path, true)
	var rl APIRatings
	decode(t, path, body, &rl)
	if code != http.StatusOK || rl.Games != 1 || len(rl.Players) != 2 || rl.Players[0].Rating <= rl.Players[1].Rating {
		t.Errorf("GET %s = %d %+v, want two players, the winner first", path, code, rl)
	}
	if code, _ := sp.get(t, fx.srv, "/api/v1/openapi.json", true); code != http.StatusOK {
		t.Errorf("GET /api/v1/openapi.json = %d", code)
	}

	// Wrong requests: 404 and 400 with what was expected.
	for _, tc := range []struct {
		path  string
		code  int
		valid bool // by the document
		want  string
	}{
		{"/api/v1/games/999", http.StatusNotFound, true, "not found"},
		{"/api/v1/games/a999", http.StatusNotFound, true, "not found"},
		{"/api/v1/games/x", http.StatusNotFound, true, "not found"},
		{"/api/v1/events/Nothing", http.StatusNotFound, true, "not found"},
		{"/api/v1/players/p0@example.org", http.StatusNotFound, true, "not found"},
		{"/api/v1/ratings/chess", http.StatusNotFound, true, "not found"},
		{"/api/v1/games?limit=101", http.StatusBadRequest, false, "expected a number from 1 to 100"},
		{"/api/v1/games?limit=0", http.StatusBadRequest, false, "expected a number from 1 to 100"},
		{"/api/v1/games?offset=1001", http.StatusBadRequest, false, "expected a number from 0 to 1000"},
		{"/api/v1/games?status=lost", http.StatusBadRequest, false, "expected over or playing"},
		{"/api/v1/games?status=playing&q=x", http.StatusBadRequest, true, "finished games only"},
		{"/api/v1/games?position=nonsense", http.StatusBadRequest, true, "no game's position text"},
		{"/api/v1/events/Autumn%20Cup?limit=x", http.StatusBadRequest, false, "expected a number"},
	} {
		code, body := sp.get(t, fx.srv, tc.path, tc.valid)
		var e apiErr
		decode(t, tc.path, body, &e)
		if code != tc.code || !strings.Contains(e.Error, tc.want) {
			t.Errorf("GET %s = %d %q, want %d saying %q", tc.path, code, e.Error, tc.code, tc.want)
		}
	}
	// The legal plies of a public game under way: those the engine
	// generates, in the game's notation.
	lp := fmt.Sprintf("/api/v1/games/%d/legal", fx.castles)
	code, body = sp.get(t, fx.srv, lp, true)
	var lg APILegal
	decode(t, lp, body, &lg)
	if code != http.StatusOK || lg.Total != len(st.Legal()) || len(lg.Plies) != min(lg.Total, MaxLegal) || lg.Ply != gv.plies()+1 {
		t.Errorf("GET %s = %d, %d plies of %d for ply %d; want %d legal plies for ply %d", lp, code, len(lg.Plies), lg.Total, lg.Ply, len(st.Legal()), gv.plies()+1)
	}
	for p, item := range sp.doc.Paths.Map() {
		if item.Get == nil || item.Get.Security != nil && len(*item.Get.Security) == 1 {
			continue // the players' part: TestAPIPlay in cmd/pbem plays it
		}
		if sp.hit[p] == 0 {
			t.Errorf("no test requests %s, which openapi.json documents", p)
		}
	}
}

// TestAPIPages: a list is paged by limit and offset, next links the
// following page until the last, and every page validates.
func TestAPIPages(t *testing.T) {
	fx := newFixture(t)
	for i := range 5 {
		addGame(t, fx.store, archive.Over, archive.GameOptions{}, "Paged", "", fmt.Sprintf("P%d", i), fmt.Sprintf("Q%d", i))
	}
	sp := loadSpec(t)
	path := "/api/v1/games?event=Paged&limit=2"
	var all []string
	for pages := 0; path != ""; pages++ {
		if pages > 3 {
			t.Fatalf("more than 3 pages of 2 for 5 games")
		}
		code, body := sp.get(t, fx.srv, path, true)
		var l APIGameList
		decode(t, path, body, &l)
		if code != http.StatusOK || l.Total != 5 || len(l.Games) > 2 {
			t.Fatalf("GET %s = %d %+v, want at most 2 of 5 games", path, code, l)
		}
		all = append(all, ids(l.Games)...)
		path = l.Next
	}
	slices.Sort(all)
	if len(slices.Compact(all)) != 5 {
		t.Errorf("the pages list %q, want 5 different games", all)
	}
	// The event's standings (two players: the fixture's seats share two
	// addresses) and games are paged alike.
	path = "/api/v1/events/Paged?limit=1&offset=1"
	code, body := sp.get(t, fx.srv, path, true)
	var ev APIEvent
	decode(t, path, body, &ev)
	if code != http.StatusOK || ev.Players != 2 || len(ev.Standings) != 1 || ev.Standings[0].Rank < 1 || len(ev.List.Games) != 1 ||
		ev.List.Next != "/api/v1/events/Paged?offset=2&limit=1" {
		t.Errorf("GET %s = %d: %d of %d standings, %d games, next %q; want 1 of 2, 1 game, next offset 2", path, code, len(ev.Standings), ev.Players, len(ev.List.Games), ev.List.Next)
	}
}

// TestAPIPrivacy: a private game is on no list of the API and its
// address is 404, as on the pages; a player of private games only is not
// there.
func TestAPIPrivacy(t *testing.T) {
	fx := newFixture(t)
	over := addGame(t, fx.store, archive.Over, archive.GameOptions{Private: true}, "Autumn Cup", "", "Oscar", "Trent")
	playing := addGame(t, fx.store, archive.Playing, archive.GameOptions{Private: true}, "Autumn Cup", "", "Oscar", "Trent")
	srv := privateServer(t, fx)
	sp := loadSpec(t)
	for _, path := range []string{fmt.Sprintf("/api/v1/games/%d", over.ID), fmt.Sprintf("/api/v1/games/%d", playing.ID),
		fmt.Sprintf("/api/v1/games/%d", fx.private), "/api/v1/players/Oscar", "/api/v1/players/Mallory"} {
		if code, body := sp.get(t, srv, path, true); code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404 for a private game or its player:\n%s", path, code, body)
		}
	}
	for _, path := range []string{"/api/v1/games", "/api/v1/games?status=playing", "/api/v1/games?event=autumn%20cup",
		"/api/v1/events/Autumn%20Cup", "/api/v1/players/Bob", "/api/v1/ratings/castles", "/api/v1/ratings/ziggurat43"} {
		code, body := sp.get(t, srv, path, true)
		if code != http.StatusOK && code != http.StatusNotFound {
			t.Errorf("GET %s = %d:\n%s", path, code, body)
		}
		for _, bad := range []string{"Oscar", "Trent", "Mallory", fmt.Sprintf(`"%d"`, over.ID), fmt.Sprintf(`"%d"`, playing.ID), fmt.Sprintf(`"%d"`, fx.private)} {
			if strings.Contains(string(body), bad) {
				t.Errorf("GET %s shows %s of a private game:\n%s", path, bad, body)
			}
		}
	}
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
