package mail

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// realworldDir holds reply fixtures from public reply-parsing projects,
// each corpus with its expectations in manifest.json (see its README).
const realworldDir = "../../shared/realworld"

// realworldCorpora are the corpora, in the order of the table.
var realworldCorpora = []string{"willdurand", "crisp", "talon", "github", "zapier"}

// realworldCase is one case of a corpus's manifest.json.
type realworldCase struct {
	ID             string          `json:"id"`
	File           string          `json:"file"`
	Format         string          `json:"format"` // body, html, eml
	Expect         string          `json:"expect"` // exact, partial, none
	Expected       string          `json:"expected"`
	Compare        string          `json:"compare"`
	Fresh          []string        `json:"fresh"`
	Signoff        []string        `json:"signoff"`
	MustContain    []string        `json:"must_contain"`
	MustNotContain []string        `json:"must_not_contain"`
	Substitute     []string        `json:"substitute"`
	Transform      []string        `json:"transform"`
	PrependHeaders bool            `json:"prepend_headers"`
	FreshParts     json.RawMessage `json:"fresh_parts"`
}

// RealworldCase is a fixture ready to read: the whole message and what the
// corpus expects of it.
type RealworldCase struct {
	Corpus string
	realworldCase
	Raw []byte
}

// loadRealworld reads the corpora, or skips the test when they are not
// beside the repository.
func loadRealworld(t testing.TB) []RealworldCase {
	t.Helper()
	if _, err := os.Stat(realworldDir); err != nil {
		t.Skipf("no real-world fixtures at %s (they sit beside the repository): %v", realworldDir, err)
	}
	var out []RealworldCase
	for _, corpus := range realworldCorpora {
		dir := filepath.Join(realworldDir, corpus)
		b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
		if err != nil {
			t.Fatalf("corpus %s: %v", corpus, err)
		}
		var m struct {
			Cases []realworldCase `json:"cases"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("corpus %s: manifest.json: %v", corpus, err)
		}
		for _, c := range m.Cases {
			file, err := os.ReadFile(filepath.Join(dir, c.File))
			if err != nil {
				t.Fatalf("corpus %s, case %s: %v", corpus, c.ID, err)
			}
			out = append(out, RealworldCase{Corpus: corpus, realworldCase: c, Raw: realworldMessage(c, string(file))})
		}
	}
	return out
}

// realworldMessage makes a fixture a whole message, with the edits the
// corpus's own test makes to it.
func realworldMessage(c realworldCase, file string) []byte {
	if len(c.Substitute) == 2 {
		file = strings.ReplaceAll(file, c.Substitute[0], c.Substitute[1])
	}
	if len(c.Transform) == 2 {
		file = strings.ReplaceAll(file, c.Transform[0], c.Transform[1])
	}
	head := "From: Bob <bob@example.org>\r\nTo: referee@pbem.example\r\nSubject: Re: game\r\nMessage-ID: <fixture@example.org>\r\n"
	switch c.Format {
	case "body":
		return []byte(head + "Content-Type: text/plain; charset=utf-8\r\n\r\n" + file)
	case "html":
		return []byte(head + "Content-Type: text/html; charset=utf-8\r\n\r\n" + file)
	}
	if c.PrependHeaders {
		return []byte(head + file)
	}
	return []byte(file)
}

// realworldVerdict compares what FreshText kept with what the corpus
// expects: "exact", "signature" (a difference only in the person's sign-off
// or signature lines), "kept" (more than expected kept, none of the
// person's words lost) or "lost" (a line of the person's words is missing).
func realworldVerdict(c RealworldCase, got string) string {
	norm := func(s string) string {
		if c.Compare == "nowhitespace" {
			return strings.Join(strings.Fields(s), "")
		}
		return tidyText(s)
	}
	for _, f := range c.Fresh {
		for _, l := range strings.Split(signatureCut(f), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.Contains(norm(got), norm(l)) {
				return "lost"
			}
		}
	}
	for _, s := range c.MustContain {
		if !strings.Contains(norm(got), norm(s)) {
			return "lost"
		}
	}
	if c.Expect != "exact" {
		for _, s := range c.MustNotContain {
			if strings.Contains(got, s) {
				return "kept"
			}
		}
		return "exact"
	}
	if norm(got) == norm(c.Expected) {
		return "exact"
	}
	drop := func(s string) string {
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if !slices.Contains(c.Signoff, strings.TrimSpace(l)) {
				keep = append(keep, l)
			}
		}
		return norm(strings.Join(keep, "\n"))
	}
	if len(c.Signoff) > 0 && drop(got) == drop(c.Expected) || norm(got) == norm(signatureCut(c.Expected)) {
		return "signature"
	}
	return "kept"
}

// signatureCut is s without its signature: from a "--" or "-- " line, or
// a device tag ("Sent from my iPhone", "Sent with Sparrow (...)": a line
// starting so, of at most six words, without a comma), on. It does not ask
// the code under test.
func signatureCut(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		tag := (strings.HasPrefix(t, "Sent from ") || strings.HasPrefix(t, "Sent with ")) &&
			!strings.Contains(t, ",") && len(strings.Fields(t)) <= 6
		if t == "--" || tag {
			return strings.Join(lines[:i], "\n")
		}
	}
	return s
}

// tidyText trims the lines of s and drops the blank ones: how the corpora
// space paragraphs differs from fragment to fragment.
func tidyText(s string) string {
	var out []string
	for _, l := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		if l = strings.TrimRight(l, " \t\u00a0"); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestRealworldReplies measures FreshText on the real-world corpora: per
// corpus, how many of the exact expectations it meets, how many differ
// only in the sign-off, how many keep too much, and how many lose the
// person's words. No case may lose words, and every corpus must agree
// (exactly or by signature policy) in at least 95% of its exact cases.
func TestRealworldReplies(t *testing.T) {
	cases := loadRealworld(t)
	type row struct{ exact, signature, kept, lost, total int }
	rows := map[string]*row{}
	var table strings.Builder
	for _, c := range cases {
		if c.Expect == "none" {
			continue
		}
		in, err := Parse(c.Raw)
		if err != nil {
			t.Errorf("%s/%s: Parse: %v", c.Corpus, c.ID, err)
			continue
		}
		got := FreshText(in.Text)
		v := realworldVerdict(c, got)
		if c.Expect != "exact" {
			if v != "exact" {
				t.Errorf("%s/%s (partial): %s; FreshText =\n%s", c.Corpus, c.ID, v, got)
			}
			continue
		}
		r := rows[c.Corpus]
		if r == nil {
			r = &row{}
			rows[c.Corpus] = r
		}
		r.total++
		switch v {
		case "exact":
			r.exact++
		case "signature":
			r.signature++
			t.Logf("%s/%s: differs in the signature only", c.Corpus, c.ID)
		case "kept":
			r.kept++
			t.Logf("%s/%s: too much kept (%s):\n%s", c.Corpus, c.ID, firstDifference(tidyText(got), tidyText(c.Expected)), got)
		case "lost":
			r.lost++
			t.Errorf("%s/%s: the person's words lost:\n%s\n--- want ---\n%s", c.Corpus, c.ID, got, c.Expected)
		}
	}
	fmt.Fprintf(&table, "%-11s %6s %9s %5s %5s %6s\n", "corpus", "exact", "signature", "kept", "lost", "cases")
	for _, corpus := range realworldCorpora {
		r := rows[corpus]
		if r == nil {
			continue
		}
		fmt.Fprintf(&table, "%-11s %6d %9d %5d %5d %6d\n", corpus, r.exact, r.signature, r.kept, r.lost, r.total)
		if agree := r.exact + r.signature; agree*100 < 95*r.total {
			t.Errorf("corpus %s: %d of %d cases agree with the corpus, want at least 95%%", corpus, agree, r.total)
		}
	}
	t.Logf("FreshText on the real-world corpora:\n%s", table.String())
}

// firstDifference names the first line where got and want differ.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("line %d is %q, want %q", i+1, a, b)
		}
	}
	return "equal"
}
