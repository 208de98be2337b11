package mail

import (
	"strconv"
	"strings"
	"testing"
)

func TestHTMLToText(t *testing.T) {
	for _, c := range []struct {
		name, html, want string
	}{
		{"blocks and entities", "<p>Nf3 &amp; Nc6</p><div>draw?<br>yes</div><ul><li>one</li><li>two</li></ul>",
			"Nf3 & Nc6\ndraw?\nyes\n- one\n- two"},
		{"skipped elements", "<head><title>t</title><style>p{}</style></head><script>x</script><!-- c --><p>e4</p>", "e4"},
		{"pre keeps spaces", "<pre>  a  b\n  c</pre>", "  a  b\n  c"},
		{"blockquote", "<div>e4</div><blockquote>old<br>older</blockquote>", "e4\n> old\n> older"},
		{"apple cite", `<div>e4</div><blockquote type="cite">On x wrote:<blockquote type="cite">deeper</blockquote></blockquote>`,
			"e4\n> On x wrote:\n>> deeper"},
		{"gmail quote", `<div dir="ltr">e4</div><div class="gmail_quote"><div class="gmail_attr">On x wrote:</div><blockquote class="gmail_quote">old</blockquote></div>`,
			"e4\n> On x wrote:\n>> old"},
		{"yahoo", `<div>e4</div><div class="yahoo_quoted" id="yahoo_quoted_1">On x wrote:<div>old</div></div>`, "e4\n> On x wrote:\n> old"},
		{"thunderbird", `<p>e4</p><div class="moz-cite-prefix">On x wrote:<br></div><blockquote type="cite">old</blockquote><pre class="moz-signature">-- 
Alice</pre>`, "e4\n> On x wrote:\n> old\n-- \nAlice"},
		{"outlook appendonsend", `<div>e4</div><div id="appendonsend"></div><hr><div id="divRplyFwdMsg"><b>From:</b> ref</div><div>old</div><p>older</p>`,
			"e4\n> From: ref\n> old\n> older"},
		{"outlook quoted again", `<div>e4</div><div id="x_divRplyFwdMsg"><b>From:</b> ref</div><div>old</div>`, "e4\n> From: ref\n> old"},
		{"gmail signature", `<div>e4</div><div class="gmail_signature">Alice<br>Chess club</div>`, "e4\n-- \nAlice\nChess club"},
		{"gmail signature with its prefix", `<div>e4</div><span class="gmail_signature_prefix">-- </span><br><div class="gmail_signature">Alice</div>`, "e4\n-- \nAlice"},
		{"empty signature", `<div>e4</div><div id="Signature"><div><br></div></div><div>more</div>`, "e4\n\nmore"},
		{"unclosed tags", "<div>e4<blockquote>old<p>older", "e4\n> old\n> older"},
		{"lone angle bracket", "a < b", "a < b"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := htmlToText(c.html); got != c.want {
				t.Errorf("htmlToText(%q) =\n%q\nwant\n%q", c.html, got, c.want)
			}
		})
	}
}

// TestHTMLDeepNesting: markup nested deeper than the parser accepts is
// read token by token, quotes and all.
func TestHTMLDeepNesting(t *testing.T) {
	n := 100000
	s := strings.Repeat("<div>", n) + "e4<script>x</script>" + strings.Repeat("</div>", n) + `<div id="Signature">Al</div>` +
		strings.Repeat("<blockquote>", 3) + "old" + strings.Repeat("<b>", n)
	if got, want := htmlToText(s), "e4\n-- \nAl\n>>> old"; got != want {
		t.Errorf("htmlToText of deep markup = %q, want %q", got, want)
	}
}

// FuzzFreshText checks the text extractors on any input: no panic, output
// bounded by the input, and FreshText keeps only lines of its input.
// Crashers found by `go test -run '^$' -fuzz FuzzFreshText ./mail` go to
// testdata/fuzz/FuzzFreshText.
func FuzzFreshText(f *testing.F) {
	for _, s := range []string{
		"e4\n\nOn Sat, Nov 21, 2026 at 10:02 AM Ref <\nr@x> wrote:\n> old\n",
		"Se3-e4\n\nSent from my iPhone\n\n> On 21 Nov 2026, at 10:02, Ref <r@x> wrote:\n",
		"Si3-h4\n\n________________________________\nFrom: Ref\nSent: today\nTo: Bob\nSubject: x\n\nold\n",
		"> q\nLe 21 nov. 2026 à 10:02, Ref a\nécrit :\n> q\n--\nsig",
		`<div>e4</div><div class="gmail_quote"><blockquote>old</blockquote></div><div id="appendonsend"></div>x`,
		`<pre class="moz-signature">-- ` + "\nA</pre><blockquote type=cite><blockquote>deep",
		strings.Repeat("<div>", 600) + "e4",
		"", "\r\n", ">", "--", ":", "<", "<!--",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return // keeps minimizing cheap; BenchmarkFreshText covers size
		}
		text := htmlToText(s)
		if len(text) > 4*len(s)+64 {
			t.Fatalf("htmlToText of %d bytes gave %d bytes", len(s), len(text))
		}
		for _, in := range []string{s, text} {
			fresh := FreshText(in)
			if len(fresh) > len(in) {
				t.Fatalf("FreshText of %d bytes gave %d bytes", len(in), len(fresh))
			}
			lines := map[string]bool{}
			for _, l := range strings.Split(strings.ReplaceAll(in, "\r\n", "\n"), "\n") {
				lines[strings.TrimRight(strings.TrimPrefix(l, "\ufeff"), " \t\u00a0")] = true
			}
			for _, l := range strings.Split(fresh, "\n") {
				if l != "" && !lines[l] {
					t.Fatalf("FreshText made up the line %q from %q", l, in)
				}
			}
		}
	})
}

// benchReply is a reply of n quoted blocks, as plain text and as HTML.
func benchReply(n int) (plain, htm string) {
	var p, h strings.Builder
	p.WriteString("Se3-e4\n\nKind regards,\nAlice\n\n")
	h.WriteString(`<div dir="ltr">Se3-e4<br>Kind regards,<br>Alice</div><div class="gmail_quote">`)
	for range n {
		p.WriteString("On Sat, Nov 21, 2026 at 10:02 AM pbem referee <\nreferee@pbem.example> wrote:\n> Ply 1: your move.\n> a b c d e f g\n\n")
		h.WriteString(`<div class="gmail_attr">On Sat, Nov 21, 2026 wrote:</div><blockquote class="gmail_quote">Ply 1: your move.<br>a b c d e f g</blockquote>`)
	}
	h.WriteString("</div>")
	return p.String(), h.String()
}

// BenchmarkFreshText and BenchmarkHTMLToText read replies of 100 and
// 10,000 quoted blocks: the time per byte stays flat (linear).
func BenchmarkFreshText(b *testing.B) {
	for _, n := range []int{100, 10000} {
		plain, _ := benchReply(n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(len(plain)))
			b.ReportAllocs()
			for b.Loop() {
				FreshText(plain)
			}
		})
	}
}

func BenchmarkHTMLToText(b *testing.B) {
	for _, n := range []int{100, 10000} {
		_, htm := benchReply(n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(len(htm)))
			b.ReportAllocs()
			for b.Loop() {
				htmlToText(htm)
			}
		})
	}
}
