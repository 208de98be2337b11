package archive

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/notation"
)

// decorate adds to every seventh ply of a canonical record collection an
// annotation, a NAG, a comment and a variation (the same ply again), which
// the canonical writer keeps.
func decorate(data []byte) []byte {
	var out []string
	for _, para := range strings.Split(string(data), "\n\n") {
		if !strings.HasPrefix(para, "[") {
			words := strings.Fields(para)
			for i, w := range words {
				if i%7 == 3 && i < len(words)-1 && !isMoveNumber(w) {
					words[i] = w + "!? $3 {see (this) [x] 1-0} (" + w + " $1 {alt})"
				}
			}
			para = strings.Join(words, " ")
		}
		out = append(out, para)
	}
	return []byte(strings.Join(out, "\n\n"))
}

// TestExportAsStoredIsExportRechecked holds the export of records as
// stored equal, byte for byte, to the export that checks every record
// again (what export did before it trusted the import), in both formats,
// on an archive of 10,000 games of the five games and on games with
// comments, annotations, NAGs and variations.
func TestExportAsStoredIsExportRechecked(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		if testing.Short() {
			t.Skip("imports 10,000 games")
		}
		ctx := context.Background()
		s := open(t, where)
		st, err := s.ImportFile(ctx, "corpus", corpus(t, 2000, 60), lookup, nil)
		require.NoError(t, err)
		require.Equal(t, 10000, st.Added)
		decorated := decorate(corpus(t, 10, 40))
		st, err = s.ImportFile(ctx, "decorated", decorated, lookup, func(ch *notation.Checked) {
			require.True(t, ch.Valid(), "%v", ch.Problems)
		})
		require.NoError(t, err)
		require.Equal(t, 50, st.Added)
		require.Contains(t, export(t, s, Filter{}, PGN), "$3 {see (this) [x] 1-0} (")

		for _, format := range []string{PGN, JSON} {
			t.Run(format, func(t *testing.T) {
				var stored, rechecked bytes.Buffer
				n, err := s.Export(ctx, &stored, lookup, Filter{}, &ExportOptions{Format: format})
				require.NoError(t, err)
				m, err := s.Export(ctx, &rechecked, lookup, Filter{}, &ExportOptions{Format: format, Recheck: true,
					Invalid: func(id int64, ps []*notation.Problem) { t.Errorf("game %d: %v", id, ps) }})
				require.NoError(t, err)
				assert.Equal(t, 10050, n)
				assert.Equal(t, m, n)
				if !bytes.Equal(stored.Bytes(), rechecked.Bytes()) {
					a, b := strings.Split(stored.String(), "\n"), strings.Split(rechecked.String(), "\n")
					for i := range min(len(a), len(b)) {
						if a[i] != b[i] {
							t.Fatalf("line %d differs:\nstored    %s\nrechecked %s", i+1, a[i], b[i])
						}
					}
					t.Fatalf("stored export is %d lines, rechecked %d", len(a), len(b))
				}
			})
		}
	})
}

func TestCanonicalPlies(t *testing.T) {
	for _, tc := range []struct {
		text   string
		plies  []string
		result string
		ok     bool
	}{
		{"[Game \"x\"]\n\n0... @c3 1. Ca1-b2!? $1 {a (b) c} (1. Ca1-c2 {d}) 1... Cb2-b3\n*\n\n", []string{"@c3", "Ca1-b2", "Cb2-b3"}, "*", true},
		{"[Game \"x\"]\n\n1-0\n\n", []string{}, "1-0", true},
		{"[Game \"x\"]\n\n1. a (b\n\n", nil, "", false},
		{"[Game \"x\"]\n\n1. a {b\n\n", nil, "", false},
		{"[Game \"x\"]", nil, "", false},
	} {
		plies, result, ok := canonicalPlies(tc.text)
		assert.Equal(t, tc.ok, ok, tc.text)
		assert.Equal(t, tc.plies, plies, tc.text)
		assert.Equal(t, tc.result, result, tc.text)
	}
}
