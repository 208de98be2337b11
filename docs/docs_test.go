package docs

import (
	"os"
	"strings"
	"testing"
)

// TestCopiesKeepTheSpecification: the specification grows with the
// product (docs/RULES.md and docs/NOTATION.md are the project's own), but
// where the shared baseline is checked out beside the repository every
// section of it must still be in the copy, under the same heading, with
// every line of the baseline's section in the same order (new lines and
// rulings may stand between them), so nothing a user or another tool
// relies on is dropped silently.
func TestCopiesKeepTheSpecification(t *testing.T) {
	for name, text := range map[string]string{"RULES.md": Rules, "NOTATION.md": Notation} {
		if !strings.HasPrefix(text, "# ") || len(text) < 1000 {
			t.Errorf("%s is not embedded (%d bytes)", name, len(text))
		}
		shared, err := os.ReadFile("../../shared/" + name)
		if err != nil {
			continue // the repository alone: nothing to compare with
		}
		ours := sections(text)
		for _, base := range sectionList(string(shared)) {
			body, ok := ours[base.heading]
			if !ok {
				t.Errorf("docs/%s has no section %q of the baseline ../shared/%s", name, base.heading, name)
				continue
			}
			if missing := missingLine(base.lines, body); missing != "" {
				t.Errorf("docs/%s, section %q: the baseline's line %q is missing or out of order", name, base.heading, missing)
			}
		}
	}
}

func TestMissingLine(t *testing.T) {
	for _, tc := range []struct {
		base, copy []string
		want       string
	}{
		{[]string{"a", "b"}, []string{"a", "new", "b"}, ""},
		{[]string{"a", "b"}, []string{"b", "a"}, "b"},
		{[]string{"a", "b"}, []string{"a"}, "b"},
	} {
		if got := missingLine(tc.base, tc.copy); got != tc.want {
			t.Errorf("missingLine(%q, %q) = %q, want %q", tc.base, tc.copy, got, tc.want)
		}
	}
}

type section struct {
	heading string
	lines   []string
}

// sectionList splits a Markdown text at its headings; the text before the
// first heading is the section "".
func sectionList(text string) []section {
	out := []section{{}}
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "#") {
			out = append(out, section{heading: strings.TrimSpace(l)})
			continue
		}
		if strings.TrimSpace(l) != "" {
			out[len(out)-1].lines = append(out[len(out)-1].lines, l)
		}
	}
	return out
}

func sections(text string) map[string][]string {
	m := map[string][]string{}
	for _, s := range sectionList(text) {
		m[s.heading] = append(m[s.heading], s.lines...)
	}
	return m
}

// missingLine is the first line of base that is not in copy in base's
// order ("" when every line is).
func missingLine(base, copy []string) string {
	j := 0
	for _, l := range base {
		for j < len(copy) && copy[j] != l {
			j++
		}
		if j == len(copy) {
			return l
		}
		j++
	}
	return ""
}
