package referee

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestBodyLines(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"plain", "move 1 +2\r\nsay hi\n", []string{"move 1 +2", "say hi"}},
		{"blank lines and spaces", "\n\n  +2  \n\n", []string{"+2"}},
		{"quoted", "> +3\n>> old\n +2\n", []string{"+2"}},
		{"signature", "+2\n-- \nAlice\nresign\n", []string{"+2"}},
		{"signature without space", "+2\n--\nresign\n", []string{"+2"}},
		{"attribution", "+2\nOn Sat, Nov 21, 2026 at 10:00 AM Ref <r@x> wrote:\n> old\nsay below\n", []string{"+2", "say below"}},
		{"wrapped attribution", "+2\nOn Sat, Nov 21, 2026 at 10:00 AM pbem referee\n<referee@pbem.example> wrote:\n> old\n", []string{"+2"}},
		{"german attribution", "+2\nAm 21.11.2026 um 10:00 schrieb Ref <r@x>:\n> alt\n", []string{"+2"}},
		{"outlook original", "+2\n-----Original Message-----\nFrom: referee\nresign\n", []string{"+2"}},
		{"outlook rule", "+2\n________________________________\nFrom: referee\nresign\n", []string{"+2"}},
		{"not an attribution", "On second thought\n+2\n", []string{"On second thought", "+2"}},
		{"byte order mark", "\ufeff+2\n", []string{"+2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := bodyLines(c.body); !slices.Equal(got, c.want) {
				t.Errorf("bodyLines(%q) = %q, want %q", c.body, got, c.want)
			}
		})
	}
}

func TestSubjectLine(t *testing.T) {
	for subject, want := range map[string]string{
		"help":                               "help",
		"Re: new castles with b@x.org":       "new castles with b@x.org",
		"RE: Fwd: games":                     "games",
		"AW: WG: Watch 12":                   "Watch 12",
		"SV: VS: RV: Antw: TR: Fw: record 1": "record 1",
		"RE : TR : show":                     "show",
		"Re[2]: resign":                      "resign",
		"Re: [pbem #12 k7x9q] toy: A vs B - A to move": "toy: A vs B - A to move",
		"Re: [pbem #12 k7x9q] Ca1-b2":                  "Ca1-b2",
		"[pbem #12 k7x9q] Re: draw":                    "draw",
		"[pbem] help":                                  "",
		"Re: [pbem] record of game #3":                 "",
		"hello there":                                  "hello there",
		"":                                             "",
		"Resign.":                                      "Resign.",
		"Reply to this":                                "Reply to this",
	} {
		if got := subjectLine(subject); got != want {
			t.Errorf("subjectLine(%q) = %q, want %q", subject, got, want)
		}
	}
}

func TestPlyShaped(t *testing.T) {
	for l, want := range map[string]bool{
		"Ca1-b2, a2xb3, @c1":           true,
		"Ca1-b2,a2xb3":                 true,
		"@c3":                          true,
		"e4":                           true,
		"Qd4xb6":                       true,
		"Qc4-off":                      true,
		"R:Lc1-c2":                     true,
		"Sa1:b2>a2,-b2":                true,
		"Ad2^f4 #7":                    true,
		"s19":                          true,
		"Hi Carol,":                    false,
		"Kind regards,":                false,
		"Cheers, Hank":                 false,
		"Grüße, Zoë":                   false,
		"(photo of my board attached)": false,
		"Thanks!":                      false,
		"Hank":                         false,
		"5pm works":                    false,
		"a123":                         false,
		"I'm at b4":                    false,
		"":                             false,
		"+2":                           false,
	} {
		if got := plyShaped(l); got != want {
			t.Errorf("plyShaped(%q) = %v, want %v", l, got, want)
		}
	}
}

func TestSplitArgs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{`toy with a@x.org, b@x.org days=3`, []string{"toy", "with", "a@x.org", "b@x.org", "days=3"}, true},
		{`toy with a@x.org event="Autumn Cup" round=2`, []string{"toy", "with", "a@x.org", "event=Autumn Cup", "round=2"}, true},
		{`event="open`, []string{"event=open"}, false},
		{``, nil, true},
	} {
		got, ok := splitArgs(c.in)
		if !slices.Equal(got, c.want) || ok != c.ok {
			t.Errorf("splitArgs(%q) = %q, %v, want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestJoinPlies(t *testing.T) {
	for in, want := range map[string][]string{
		"+1 +2":                      {"+1", "+2"},
		"Ca2-b2, a1-a2 Ca3-a4,b4-c4": {"Ca2-b2,a1-a2", "Ca3-a4,b4-c4"},
		"Ca2-b2 ,a1-a2":              {"Ca2-b2,a1-a2"},
		"Ca1-b2, a2xb3, @c1 @c3":     {"Ca1-b2,a2xb3,@c1", "@c3"},
	} {
		if got := joinPlies(strings.Fields(in)); !slices.Equal(got, want) {
			t.Errorf("joinPlies(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplitExpect(t *testing.T) {
	for _, c := range []struct {
		in   string
		text string
		n    int
	}{
		{"+2 #5", "+2", 5},
		{"Ca1-b2, @c1 #12", "Ca1-b2, @c1", 12},
		{"+2", "+2", 0},
		{"#5", "#5", 0},
		{"+2 #x", "+2 #x", 0},
	} {
		text, n := splitExpect(c.in)
		if text != c.text || n != c.n {
			t.Errorf("splitExpect(%q) = %q, %d, want %q, %d", c.in, text, n, c.text, c.n)
		}
	}
}

func TestWrap(t *testing.T) {
	long := strings.Repeat("word ", 40)
	for _, l := range strings.Split(wrap(long), "\n") {
		if len(l) > Width {
			t.Errorf("wrap: line of %d columns: %q", len(l), l)
		}
	}
	board := "   a b c\n" + strings.Repeat("x", 80)
	if got := wrap(" " + board); got != " "+board {
		t.Errorf("wrap changed an indented line: %q", got)
	}
	if got := quoteLine(strings.Repeat("y", 100)); len(got) > Width {
		t.Errorf("quoteLine is %d columns", len(got))
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		7 * 24 * time.Hour:           "7 days",
		24*time.Hour + 2*time.Hour:   "1 day 2 hours",
		5*time.Hour + 30*time.Minute: "5 hours 30 minutes",
		time.Hour:                    "1 hour",
		59 * time.Second:             "1 minute",
		-time.Hour:                   "0 minutes",
	} {
		if got := duration(d); got != want {
			t.Errorf("duration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestSubjectTagAndPlusAddress(t *testing.T) {
	r, err := New(nopStore{}, &Options{Address: "Referee@PBEM.example"})
	if err != nil {
		t.Fatal(err)
	}
	for subject, want := range map[string]cred{
		"Re: [pbem #12 k7x9qabc] castles: A vs B": {game: 12, token: "k7x9qabc", where: "subject"},
		"[PBEM #12 K7X9QABC]":                     {game: 12, token: "k7x9qabc", where: "subject"},
		"[pbem #12] toy":                          {game: 12, where: "subject"},
		"[pbem 12 tok]":                           {game: 12, token: "tok", where: "subject"},
	} {
		found, got := subjectTag(subject)
		if !found || got != want {
			t.Errorf("subjectTag(%q) = %v, %+v, want %+v", subject, found, got, want)
		}
	}
	if found, _ := subjectTag("no tag [pbemx]"); found {
		t.Errorf("subjectTag found a tag in %q", "no tag [pbemx]")
	}
	for to, want := range map[string]cred{
		"referee+12.k7x9q@pbem.example": {game: 12, token: "k7x9q", where: "address"},
		"<Referee+3.ABC@PBEM.Example>":  {game: 3, token: "abc", where: "address"},
		"referee+12@pbem.example":       {game: 12, where: "address"},
		"referee@pbem.example":          {},
		"referee+x.tok@pbem.example":    {},
		"other+12.tok@pbem.example":     {},
		"referee+12.tok@other.example":  {},
	} {
		got, ok := r.plusAddress(to)
		if got != want || ok != (want.game != 0) {
			t.Errorf("plusAddress(%q) = %+v, %v, want %+v", to, got, ok, want)
		}
	}
}

func TestAutomatic(t *testing.T) {
	r, err := New(nopStore{}, &Options{Address: "referee@pbem.example"})
	if err != nil {
		t.Fatal(err)
	}
	human := Request{From: Address{Addr: "alice@example.org"}}
	for _, c := range []struct {
		name string
		edit func(*Request)
		auto bool
	}{
		{"a person", func(*Request) {}, false},
		{"auto-submitted: no", func(q *Request) { q.AutoSubmitted = "No" }, false},
		{"precedence: first-class", func(q *Request) { q.Precedence = "first-class" }, false},
		{"null sender", func(q *Request) { q.NullSender = true }, true},
		{"no sender", func(q *Request) { q.From.Addr = "" }, true},
		{"mailer-daemon", func(q *Request) { q.From.Addr = "MAILER-DAEMON@example.org" }, true},
		{"postmaster", func(q *Request) { q.From.Addr = "postmaster@example.org" }, true},
		{"owner-", func(q *Request) { q.From.Addr = "owner-list@example.org" }, true},
		{"-request", func(q *Request) { q.From.Addr = "list-request@example.org" }, true},
		{"noreply", func(q *Request) { q.From.Addr = "noreply@example.org" }, true},
		{"own address", func(q *Request) { q.From.Addr = "Referee@pbem.example" }, true},
		{"own plus-address", func(q *Request) { q.From.Addr = "referee+1.x@pbem.example" }, true},
		{"report", func(q *Request) { q.ContentType = "Multipart/Report" }, true},
		{"auto-replied", func(q *Request) { q.AutoSubmitted = "auto-replied" }, true},
		{"auto-generated", func(q *Request) { q.AutoSubmitted = "auto-generated" }, true},
		{"bulk", func(q *Request) { q.Precedence = "bulk" }, true},
		{"junk", func(q *Request) { q.Precedence = "junk" }, true},
		{"list", func(q *Request) { q.Precedence = "List" }, true},
		{"x-autoreply", func(q *Request) { q.XAutoreply = true }, true},
		{"list-id", func(q *Request) { q.ListID = true }, true},
	} {
		q := human
		c.edit(&q)
		if got := r.automatic(&q); (got != "") != c.auto {
			t.Errorf("%s: automatic() = %q, want automatic=%v", c.name, got, c.auto)
		}
	}
}

func TestTokens(t *testing.T) {
	r, err := New(nopStore{}, &Options{Address: "referee@pbem.example"})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for range 200 {
		tok, err := r.newToken()
		if err != nil {
			t.Fatal(err)
		}
		if len(tok) != TokenLength || strings.Trim(tok, tokenAlphabet) != "" {
			t.Fatalf("newToken() = %q, want %d characters of %q", tok, TokenLength, tokenAlphabet)
		}
		if seen[tok] {
			t.Fatalf("newToken() repeated %q", tok)
		}
		seen[tok] = true
	}
	// A biased source (all bytes 255) is rejected, not folded into the
	// alphabet; a short source is an error.
	r.opts.Rand = bytes.NewReader(bytes.Repeat([]byte{255}, 64))
	if _, err := r.newToken(); err == nil {
		t.Error("newToken from a source of rejected bytes succeeded")
	}
	if !tokenEqual("abc", "abc") || tokenEqual("abc", "abd") || tokenEqual("", "") {
		t.Error("tokenEqual is wrong")
	}
}

func TestValidAddr(t *testing.T) {
	for a, want := range map[string]bool{
		"bob@example.org":        true,
		"bob+x@mail.example.org": true,
		"bob@localhost":          false,
		"bob":                    false,
		"@example.org":           false,
		"bob@@example.org":       false,
		"bo b@example.org":       false,
		"bob@example.org.":       false,
		"<bob@example.org>":      false,
	} {
		if got := validAddr(a); got != want {
			t.Errorf("validAddr(%q) = %v, want %v", a, got, want)
		}
	}
	if got := normAddr(" <Bob@Example.ORG>, "); got != "bob@example.org" {
		t.Errorf("normAddr = %q", got)
	}
	if got := cleanName("  Al\"i<c>e \x07 the\tGreat  "); got != "Alice the Great" {
		t.Errorf("cleanName = %q", got)
	}
}

// nopStore is a Store for tests that do not reach it.
type nopStore struct{ Store }
