package web

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"pbem/archive"
)

// TestExplorePage: the explorer starts at the start of a game, lists the
// ply the archived game played with its count and result, links one ply
// deeper, and refuses a ply that does not play.
func TestExplorePage(t *testing.T) {
	fx := newFixture(t)
	es, err := fx.store.Entries(context.Background(), 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	var zig archive.Entry
	for _, e := range es {
		if e.Game == "ziggurat" {
			zig = e
		}
	}
	// The first two plies of the archived ziggurat game.
	plies := regexp.MustCompile(`\n1\. (\S+) (\S+)`).FindStringSubmatch(zig.Record)
	if plies == nil {
		t.Fatalf("no plies in %q", zig.Record)
	}
	code, body, _ := get(t, fx.srv, "/explore/ziggurat")
	if code != http.StatusOK {
		t.Fatalf("GET /explore/ziggurat = %d %s", code, body)
	}
	row := `<tr><td><a href="/explore/ziggurat?after=` + strings.ReplaceAll(plies[1], "@", "%40") + `">` + plies[1] + `</a></td><td>1</td>`
	for _, want := range []string{"<h1>Explorer: ziggurat</h1>", "<code>qdwwdq/6/6/6/6/QDWWDQ QDWqdw - S 0</code>", row, "<svg", "Results for South, the side to move."} {
		if !strings.Contains(body, want) {
			t.Errorf("GET /explore/ziggurat lacks %q:\n%s", want, body)
		}
	}
	code, body, _ = get(t, fx.srv, "/explore/ziggurat?after="+plies[1])
	if code != http.StatusOK || !strings.Contains(body, ">"+plies[2]+"</a></td><td>1</td>") {
		t.Errorf("GET /explore/ziggurat?after=%s = %d, without the reply %s:\n%s", plies[1], code, plies[2], body)
	}
	code, body, _ = get(t, fx.srv, "/explore/ziggurat?after="+plies[1]+"+"+plies[2]+"+pass")
	if code == http.StatusOK && !strings.Contains(body, "No archived game plays on") {
		t.Errorf("a position no game reached: %s", body)
	}
	code, body, _ = get(t, fx.srv, "/explore/ziggurat?after=Qa1-a9")
	if code != http.StatusBadRequest || !strings.Contains(body, `ply 1 "Qa1-a9"`) {
		t.Errorf("GET /explore/ziggurat?after=Qa1-a9 = %d %s, want 400 naming the ply", code, body)
	}
	if code, _, _ := get(t, fx.srv, "/explore/chess"); code != http.StatusNotFound {
		t.Errorf("GET /explore/chess = %d, want 404", code)
	}
}
