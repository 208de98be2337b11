package referee_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"pbem/archive"
	"pbem/archive/web/browsertest"
	"pbem/engine"
	"pbem/engine/picture"
	"pbem/referee"
)

// browser starts the headless Chromium the browser tests share.
func browser(t *testing.T) context.Context { return browsertest.Start(t) }

// mailView is what the page reports of an HTML mail as shown.
type mailView struct {
	ScrollWidth, InnerWidth int
	ImgWidth, ImgNatural    float64
	ImgLoaded               bool
	TextColour, BoardGround string
	// Wrong lists the probes whose pixels disagree with the position.
	Wrong []string
}

// mailCheck measures the page: sideways scroll, the picture's size, the
// text's colour and the board's ground, and, drawing the picture on a
// canvas at its own size, whether each cell shows something over its own
// colour exactly where the position has a piece.
const mailCheck = `(async () => {
  const img = document.querySelector('img');
  await img.decode().catch(() => {});
  const c = document.createElement('canvas');
  c.width = img.naturalWidth; c.height = img.naturalHeight;
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  const px = g.getImageData(0, 0, c.width, c.height).data;
  const wrong = [];
  for (const p of PROBES) {
    const e = [1, 3, 5].map(i => parseInt(p.Empty.slice(i, i + 2), 16));
    let differs = false;
    for (let y = p.Y - p.Half; y <= p.Y + p.Half && !differs; y++)
      for (let x = p.X - p.Half; x <= p.X + p.Half; x++) {
        const i = 4 * (y * c.width + x);
        if (Math.abs(px[i] - e[0]) + Math.abs(px[i+1] - e[1]) + Math.abs(px[i+2] - e[2]) > 6) { differs = true; break; }
      }
    if (differs !== p.Occupied) wrong.push(p.Name + (p.Occupied ? ' shows no piece' : ' shows a piece'));
  }
  return {
    ScrollWidth: document.documentElement.scrollWidth, InnerWidth: window.innerWidth,
    ImgWidth: img.getBoundingClientRect().width, ImgNatural: img.naturalWidth, ImgLoaded: img.complete && img.naturalWidth > 0,
    TextColour: getComputedStyle(document.querySelector('.pbem p')).color,
    BoardGround: getComputedStyle(document.querySelector('.pbem .board')).backgroundColor,
    Wrong: wrong,
  };
})()`

// TestHTMLMailInBrowser opens the HTML part of each game's board mail, as
// a mail client shows it (its cid: picture served beside it), 390 and
// 1,024 pixels wide, light and dark: the page never scrolls sideways, the
// picture is shown within the width, its cells show pieces exactly where
// the position has them, the text is dark on light or light on dark, and
// the board keeps its white ground.
func TestHTMLMailInBrowser(t *testing.T) {
	ctx := browser(t)
	dir := browsertest.ArtifactDir(t)
	for _, gm := range htmlGames {
		t.Run(gm.name, func(t *testing.T) {
			// SQLite only: what this checks is Chromium's drawing of the
			// mail, which TestHTMLMail shows both stores keep alike.
			h := newHarness(t, sqliteOnly, nil)
			startGame(t, h, gm.name, gm.args, gm.players)
			var o *archive.Outgoing
			for id := 1; ; id++ {
				m, err := h.store.Outgoing(h.ctx, fmt.Sprint(id))
				if errors.Is(err, archive.ErrNotFound) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if m.To[0].Addr == "alice@example.org" && len(m.Inline) == 1 {
					o = &m
				}
			}
			if o == nil {
				t.Fatal("Alice got no board mail")
			}
			// the position the mail shows: the start, from Alice's seat
			codec, err := referee.Lookup(strings.SplitN(gm.name, "-", 2)[0])
			if err != nil {
				t.Fatal(err)
			}
			eo := engine.Options{}
			switch gm.name {
			case "rpp-square7":
				eo = engine.Options{Players: 4, Board: "square7"}
			case "rpp-octagon":
				eo = engine.Options{Players: 8, Board: "octagon"}
			}
			st, err := codec.Rules().Start(eo)
			if err != nil {
				t.Fatal(err)
			}
			probes, _ := json.Marshal(picture.Probes(st.(engine.Layouter).Layout(0), 0))

			page := strings.ReplaceAll(o.HTML, "cid:"+o.Inline[0].ContentID, "/board.png")
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/board.png" {
					w.Header().Set("Content-Type", "image/png")
					data, err := referee.Draw(&o.Inline[0])
					if err != nil {
						http.Error(w, err.Error(), http.StatusInternalServerError)
						return
					}
					w.Write(data)
					return
				}
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				w.Write([]byte(page))
			}))
			defer srv.Close()
			for _, width := range []int64{390, 1024} {
				for _, scheme := range []string{"light", "dark"} {
					err := chromedp.Do(ctx,
						chromedp.EmulateViewport(width, 800),
						func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
							_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
								Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
							return chromedp.Void{}, err
						},
						chromedp.Navigate(srv.URL))
					if err != nil {
						t.Fatal(err)
					}
					v, err := chromedp.Run(ctx, chromedp.Evaluate[mailView](strings.Replace(mailCheck, "PROBES", string(probes), 1), chromedp.EvalAwaitPromise))
					if err != nil {
						t.Fatal(err)
					}
					at := fmt.Sprintf("%d px, %s", width, scheme)
					if v.ScrollWidth > v.InnerWidth {
						t.Errorf("%s: the page scrolls sideways (%d > %d)", at, v.ScrollWidth, v.InnerWidth)
					}
					if !v.ImgLoaded || v.ImgWidth < 100 || v.ImgWidth > float64(width) {
						t.Errorf("%s: the picture is not shown within the width (loaded %v, %.0f px wide)", at, v.ImgLoaded, v.ImgWidth)
					}
					if len(v.Wrong) > 0 {
						t.Errorf("%s: the picture disagrees with the position: %s", at, strings.Join(v.Wrong, ", "))
					}
					var r, g, b int
					fmt.Sscanf(v.TextColour, "rgb(%d, %d, %d)", &r, &g, &b)
					light := r+g+b > 3*128
					if scheme == "dark" && !light || scheme == "light" && light {
						t.Errorf("%s: text colour %s", at, v.TextColour)
					}
					if v.BoardGround != "rgb(255, 255, 255)" {
						t.Errorf("%s: the board's ground is %s, want white", at, v.BoardGround)
					}
					if width == 390 { // a screenshot of the phone view (PNG at quality 100)
						shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
						if err == nil {
							os.WriteFile(filepath.Join(dir, fmt.Sprintf("mail-%s-%s.png", gm.name, scheme)), shot, 0o644)
						}
					}
					t.Logf("%s: picture %.0f of %.0f px, text %s, board ground %s", at, v.ImgWidth, v.ImgNatural, v.TextColour, v.BoardGround)
				}
			}
		})
	}
}
