package referee_test

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"pbem/archive"
	"pbem/referee"
)

// htmlGames start a game of each kind and board, the largest (rpp's
// octagon of 8 seats) included.
var htmlGames = []struct {
	name, args string // the game (before any -) and its options
	players    []string
}{
	{"castles", "", nil},
	{"elevation", "", nil},
	{"ziggurat", "", nil},
	{"ziggurat43", "", nil},
	{"rpp-square7", "players=4 board=square7", []string{"carol", "dave"}},
	{"rpp-octagon", "players=8 board=octagon", []string{"carol", "dave", "erin", "frank", "grace", "heidi"}},
}

// TestHTMLMail: every mail has an HTML part that uses no script, no
// remote resource and one style block at most; a mail showing a board
// shows it as a PNG part it refers to by cid:, with alt text saying whose
// turn it is; and a mail with its picture stays well under Gmail's 102 KB
// clipping limit.
func TestHTMLMail(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		for _, gm := range htmlGames {
			t.Run(gm.name, func(t *testing.T) {
				h := newHarness(t, db, nil)
				startGame(t, h, gm.name, gm.args, gm.players)
				// every mail sent, from the outbox (the harness has marked
				// them sent)
				var due []archive.Outgoing
				for id := 1; ; id++ {
					o, err := h.store.Outgoing(h.ctx, fmt.Sprint(id))
					if errors.Is(err, archive.ErrNotFound) {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					due = append(due, o)
				}
				boards, largest := 0, 0
				for _, o := range due {
					checkHTML(t, &o)
					if len(o.Inline) > 0 {
						boards++
					}
					largest = max(largest, mailSize(&o))
				}
				if boards == 0 {
					t.Fatalf("no mail of the started game shows the board as a picture (%d mails)", len(due))
				}
				if largest > 80<<10 {
					t.Errorf("the largest mail is %d bytes, want it well under 102 KB", largest)
				}
				t.Logf("%s: %d mails, %d with a board, the largest about %d bytes", gm.name, len(due), boards, largest)
			})
		}
	})
}

// startGame starts a game of name (the game before any "-") with
// options args, Alice playing first against Bob and the others.
func startGame(t testing.TB, h *harness, name, args string, players []string) {
	t.Helper()
	others := append([]string{"bob"}, players...)
	var with []string
	for _, p := range others {
		with = append(with, p+"@example.org")
	}
	if out := h.send(fmt.Sprintf("from: Alice <alice@example.org>\nsubject: new %s with %s %s first=alice@example.org\n", strings.SplitN(name, "-", 2)[0], strings.Join(with, " "), args)); !strings.Contains(out, "To confirm") {
		t.Fatalf("no game:\n%s", out)
	}
	h.send("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\naccept\n")
	for _, p := range others {
		out := h.send(fmt.Sprintf("from: %s <%s@example.org>\nto: {plus 1 %s@example.org}\n\naccept\n", p, p, p))
		if p == others[len(others)-1] && !strings.Contains(out, "to move") {
			t.Fatalf("the game did not start:\n%s", out)
		}
	}
}

// BenchmarkBoardReply: the referee answers "show" with the board, in a
// game of each kind and board: text only (text) or with the HTML part and
// its picture (html, the default). The difference is the cost of the
// picture: drawing, encoding and storing it.
func BenchmarkBoardReply(b *testing.B) {
	for _, gm := range htmlGames {
		for _, mode := range []string{"text", "html"} {
			b.Run(gm.name+"/"+mode, func(b *testing.B) {
				h := newHarness(b, sqliteOnly, nil)
				startGame(b, h, gm.name, gm.args, gm.players)
				if mode == "text" {
					ref, err := referee.New(h.store, &referee.Options{Address: "referee@pbem.example", Lookup: testLookup, Games: testGames,
						Clock: h.clock, Rand: rand.NewChaCha8([32]byte{1, 2, 3}), TextMail: true})
					if err != nil {
						b.Fatal(err)
					}
					h.ref = ref
				}
				req := h.request("show", "from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\nshow\n")
				b.ReportAllocs()
				n := 0
				var took []time.Duration
				for b.Loop() {
					n++
					req.MessageID = fmt.Sprintf("show%d@test.example", n)
					start := time.Now()
					if err := h.ref.Handle(h.ctx, req); err != nil {
						b.Fatal(err)
					}
					took = append(took, time.Since(start))
				}
				slices.Sort(took)
				b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			})
		}
	}
}

// TestHTMLLinksTheGame: with a web address, the HTML part links the
// game's page.
func TestHTMLLinksTheGame(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := newHarness(t, db, map[string]string{"web-base-url": "https://pbem.example"})
		startGame(t, h, "castles", "", nil)
		found := false
		for id := 1; ; id++ {
			o, err := h.store.Outgoing(h.ctx, fmt.Sprint(id))
			if err != nil {
				break
			}
			if len(o.Inline) > 0 {
				found = true
				if !strings.Contains(o.HTML, `<a href="https://pbem.example/g/1">https://pbem.example/g/1</a>`) {
					t.Errorf("the board mail to %s does not link the game's page:\n%s", o.To[0].Addr, o.HTML)
				}
			}
		}
		if !found {
			t.Fatal("no board mail")
		}
	})
}

// mailSize estimates the size of o as sent: text, HTML in quoted-printable
// and images in base64, with about 1 KB of header.
func mailSize(o *archive.Outgoing) int {
	n := 1024 + len(o.Text) + len(o.HTML)*21/20
	for _, in := range o.Inline {
		data, _ := referee.Draw(&in)
		n += (len(data)+2)/3*4*78/76 + 200
	}
	return n
}

func checkHTML(t *testing.T, o *archive.Outgoing) {
	t.Helper()
	to := o.To[0].Addr
	if o.HTML == "" {
		t.Fatalf("mail to %s has no HTML part", to)
	}
	low := strings.ToLower(o.HTML)
	for _, bad := range []string{"<script", "src=\"http", "src='http", "url(", "data:", "<link"} {
		if strings.Contains(low, bad) {
			t.Errorf("mail to %s: HTML holds %q", to, bad)
		}
	}
	if n := strings.Count(low, "<style"); n > 1 {
		t.Errorf("mail to %s: %d style blocks", to, n)
	}
	if !strings.Contains(low, "prefers-color-scheme: dark") {
		t.Errorf("mail to %s: no dark-mode rule", to)
	}
	for _, in := range o.Inline {
		if !strings.Contains(o.HTML, `src="cid:`+in.ContentID+`"`) {
			t.Errorf("mail to %s: image %s is not shown", to, in.ContentID)
		}
		if in.ContentType != "image/png" {
			t.Errorf("image type %q", in.ContentType)
		}
		data, err := referee.Draw(&in)
		if err != nil {
			t.Errorf("mail to %s: image not drawn: %v", to, err)
		}
		if _, err := png.Decode(bytes.NewReader(data)); err != nil {
			t.Errorf("mail to %s: image does not decode: %v", to, err)
		}
		if !strings.Contains(o.HTML, `alt="Board of game #1`) || !strings.Contains(o.HTML, "to move") {
			t.Errorf("mail to %s: the picture has no alt text saying whose turn it is", to)
		}
	}
}

// TestMailChoice: "mail text" makes the sender's mail plain text from that
// reply on, in every game, while the other players keep their HTML; "mail
// html" brings it back; anything else is refused, saying what is
// expected.
func TestMailChoice(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := newHarness(t, db, nil)
		startGame(t, h, "castles", "", nil)
		last := func(to string) archive.Outgoing {
			t.Helper()
			var found archive.Outgoing
			for id := 1; ; id++ {
				o, err := h.store.Outgoing(h.ctx, fmt.Sprint(id))
				if errors.Is(err, archive.ErrNotFound) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if o.To[0].Addr == to {
					found = o
				}
			}
			if found.MessageID == "" {
				t.Fatalf("no mail to %s", to)
			}
			return found
		}
		if o := last("alice@example.org"); o.HTML == "" {
			t.Fatal("before any choice, Alice's mail has no HTML part")
		}
		out := h.send("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\nmail text\n")
		if !strings.Contains(out, "plain text only from now on") {
			t.Fatalf("mail text answered:\n%s", out)
		}
		if o := last("alice@example.org"); o.HTML != "" || len(o.Inline) > 0 {
			t.Error("the answer to mail text has an HTML part")
		}
		h.send("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\nshow\n")
		if o := last("alice@example.org"); o.HTML != "" {
			t.Error("after mail text, the board comes with an HTML part")
		}
		h.send("from: Bob <bob@example.org>\nto: {plus 1 bob@example.org}\n\nshow\n")
		if o := last("bob@example.org"); o.HTML == "" || len(o.Inline) != 1 {
			t.Error("Bob's board lost its HTML part when Alice chose text")
		}
		out = h.send("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\nmail pictures\n")
		if !strings.Contains(out, "Expected: mail text (plain text only) or mail html") {
			t.Errorf("mail pictures answered:\n%s", out)
		}
		h.send("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\nmail html\n\nshow\n")
		if o := last("alice@example.org"); o.HTML == "" || len(o.Inline) != 1 {
			t.Error("after mail html, the board has no picture")
		}
	})
}

// TestHTMLKeepsLayout: in the HTML part, prose paragraphs are paragraphs
// with their wrapped lines joined, while what is laid out by its lines (a
// record's tag pairs, the help's table) is preformatted, line for line.
func TestHTMLKeepsLayout(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		h := newHarness(t, db, nil)
		startGame(t, h, "castles", "", nil)
		h.send("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\nresign\n")
		h.send("from: Bob <bob@example.org>\n\nhelp\n")
		var over, help string
		for id := 1; ; id++ {
			o, err := h.store.Outgoing(h.ctx, fmt.Sprint(id))
			if err != nil {
				break
			}
			if strings.Contains(o.Subject, "game over") {
				over = o.HTML
			}
			if strings.Contains(o.Subject, "help") {
				help = o.HTML
			}
		}
		if !regexp.MustCompile(`<pre[^>]*>\[Game &#34;castles&#34;\]\n\[Event `).MatchString(over) {
			t.Errorf("the record's tags are not preformatted line for line:\n%s", over)
		}
		if !regexp.MustCompile(`<p[^>]*>Game over after 0 plies\. Result 0-1, by resignation: bob \(Second\) wins\.</p>`).MatchString(over) {
			t.Errorf("the result is not one paragraph:\n%s", over)
		}
		if !strings.Contains(help, "\n show [GAMEID]        The board.\n") {
			t.Errorf("the help's table is not kept line for line:\n%s", help)
		}
	})
}

// TestHTMLMailLegend: a mail with the picture of a game of more than two
// seats gives its legend as HTML text beside it: a line per seat with
// the seat's letter, colour name and player, the reader's own seat
// marked; a two-seat game's mail has none.
func TestHTMLMailLegend(t *testing.T) {
	eachStore(t, func(t *testing.T, db store) {
		for _, gm := range htmlGames {
			t.Run(gm.name, func(t *testing.T) {
				h := newHarness(t, db, nil)
				startGame(t, h, gm.name, gm.args, gm.players)
				out := h.send("from: Alice <alice@example.org>\nto: {plus 1 alice@example.org}\n\nshow\n")
				if !strings.Contains(out, "to move") {
					t.Fatalf("no board:\n%s", out)
				}
				o := lastOutgoing(t, h)
				if len(o.Inline) == 0 {
					t.Fatal("the board's mail has no picture")
				}
				_, legend, ok := strings.Cut(o.HTML, `<div class="legend"`)
				if len(gm.players) == 0 {
					if ok {
						t.Fatalf("a two-seat game's mail has a legend:\n%s", o.HTML)
					}
					return
				}
				if !ok {
					t.Fatalf("no legend in the HTML part:\n%s", o.HTML)
				}
				legend, _, _ = strings.Cut(legend, "\n</div>")
				names := append([]string{"Alice (you)", "bob"}, gm.players...)
				lines := strings.Split(strings.TrimSpace(legend), "\n")[1:]
				if len(lines) != len(names) {
					t.Fatalf("the legend has %d lines, want one a seat (%d):\n%s", len(lines), len(names), legend)
				}
				for i, line := range lines {
					want := fmt.Sprintf("<b>%c</b> %s %s: live ", "RYGBKWOP"[i], []string{"red", "yellow", "green", "blue", "black", "white", "orange", "purple"}[i], names[i])
					if !strings.Contains(line, want) {
						t.Errorf("legend line %d = %s, want it to contain %q", i+1, line, want)
					}
					if !strings.Contains(line, "background:#") {
						t.Errorf("legend line %d shows no colour: %s", i+1, line)
					}
				}
			})
		}
	})
}

// lastOutgoing is the last mail in h's outbox.
func lastOutgoing(t *testing.T, h *harness) archive.Outgoing {
	t.Helper()
	var last archive.Outgoing
	for id := 1; ; id++ {
		o, err := h.store.Outgoing(h.ctx, fmt.Sprint(id))
		if errors.Is(err, archive.ErrNotFound) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		last = o
	}
	return last
}
