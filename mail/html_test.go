package mail

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
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
		{"unclosed head", "<html><head><title>t</title><style>p{}</style><body><p>e4</p>", "e4"},
		{"repeated body", `<body class="a">e4<body id="b"><body>e5`, "e4\ne5"},
		{"end tags that break lines", "e4</br>e5</p>e6", "e4\ne5\ne6"},
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

// hostileHTML makes documents of about size bytes that were once costly
// to render, each holding "e4" where its text is: markup nested deeper
// than the HTML5 tree builder accepts, closed, unclosed, misnested, or
// closed by end tags that match nothing; and markup that made the tree
// builder work in quadratic time (repeated <body> tags with attributes,
// formatting elements with many attributes, or many of them, cloned at
// each paragraph) or hundreds of steps per tag (end tags under a deep
// stack); long character references; and nested signatures ending
// together, after a long line of spaces.
func hostileHTML(size int) map[string]string {
	rep := func(unit string) int { return size / len(unit) }
	var bodies, attrs, ids strings.Builder
	for i := 0; bodies.Len() < size; i++ {
		fmt.Fprintf(&bodies, "<body a%d>e4", i)
	}
	for i := 0; attrs.Len() < size/2; i++ {
		fmt.Fprintf(&attrs, "a%d ", i)
	}
	for i := range 400 {
		fmt.Fprintf(&ids, "<b id=%d>", i)
	}
	n := rep("<div></div>")
	// &#000...101; is "e", in text; &aaa...; is no entity, in an attribute.
	entity := "&#" + strings.Repeat("0", 200) + "101;4 <p title=\"&" + strings.Repeat("a", 200) + "\">"
	return map[string]string{
		"nested":           strings.Repeat("<div>", n) + "e4" + strings.Repeat("</div>", n),
		"unclosed":         strings.Repeat("<div>e4", rep("<div>e4")),
		"mismatched":       strings.Repeat("<b><i>", n/2) + "e4" + strings.Repeat("</b></i>", n/2),
		"unmatched":        strings.Repeat("<div>", n) + "e4" + strings.Repeat("</span>", n),
		"body attrs":       bodies.String(),
		"formatting attrs": "<p><b " + attrs.String() + ">" + strings.Repeat("e4</p><p>", rep("e4</p><p>")/2),
		"formatting class": `<p><b class="` + strings.Repeat("x", size/2) + `">` + strings.Repeat("e4</p><p>", rep("e4</p><p>")/2),
		"formatting many":  "<p>" + ids.String() + strings.Repeat("e4</p><p>", rep("e4</p><p>")),
		"deep scope":       strings.Repeat("<span>", 500) + "e4" + strings.Repeat("</p>", rep("</p>")),
		"entities":         strings.Repeat(entity, rep(entity)),
		"signatures":       strings.Repeat(`<div id="Signature">`, size/40) + "<pre>" + strings.Repeat(" ", size/2) + strings.Repeat("\n", 10) + "e4</pre>" + strings.Repeat("</div>", size/40),
	}
}

// TestHTMLLinear: however the end tags of hostile markup match its start
// tags, the renderer looks at each open element at most once, when an end
// tag closes it (it once looked at the whole stack for each end tag that
// matched nothing: 840 kB took a minute), and the memory it takes grows
// with the size of the markup, not faster (the HTML5 tree builder's grew
// with its square on some of them).
func TestHTMLLinear(t *testing.T) {
	alloc := func(s string) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		htmlToText(s)
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := hostileHTML(20000), hostileHTML(80000)
	for _, name := range slices.Sorted(maps.Keys(small)) {
		for _, s := range []string{small[name], large[name]} {
			text, work := renderTokens(s)
			if work > 2*len(s) {
				t.Errorf("%s, %d bytes: work %d, want at most %d (two steps a byte)", name, len(s), work, 2*len(s))
			}
			words := strings.Fields(text)
			want := strings.Count(s, "e4") + strings.Count(s, "101;4")
			if len(words) != want || slices.ContainsFunc(words, func(w string) bool { return w != "e4" }) {
				t.Errorf("%s, %d bytes: text %.40q..., want %d times e4", name, len(s), text, want)
			}
		}
		if a, b := alloc(small[name]), alloc(large[name]); b > 8*a {
			t.Errorf("%s: htmlToText allocated %d bytes for %d bytes and %d for %d: more than linear", name, a, len(small[name]), b, len(large[name]))
		}
	}
	text, _ := renderTokens("<blockquote><div>old</span></div>older</blockquote>new</b>")
	if want := "> old\n> older\nnew"; text != want {
		t.Errorf("unmatched end tags: text %q, want %q", text, want)
	}
}

// BenchmarkHTMLHostile renders 1 MB of each hostile document: the time
// is of the order of BenchmarkHTMLToText's per byte.
func BenchmarkHTMLHostile(b *testing.B) {
	docs := hostileHTML(1 << 20)
	for _, name := range slices.Sorted(maps.Keys(docs)) {
		s := docs[name]
		b.Run(strings.ReplaceAll(name, " ", "_"), func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for b.Loop() {
				htmlToText(s)
			}
		})
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
