package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/mail"
	"pbem/notation"
	"pbem/referee"
)

// TestDemoWritesMails: pbem demo writes every mail the players got, as
// received over IMAP, into the directory it names, and a board mail among
// them has its HTML part and picture.
func TestDemoWritesMails(t *testing.T) {
	c, err := referee.Lookup("castles")
	require.NoError(t, err)
	dir := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, demoTo(context.Background(), testConfig(t), &out, []notation.Codec{c}, 1, 7, dir))
	assert.Contains(t, out.String(), "Every mail the players got is in "+dir)
	files, err := filepath.Glob(filepath.Join(dir, "castles-*.eml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	boards := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		s := string(raw)
		assert.Contains(t, s, "Content-Type: multipart/alternative", f)
		if strings.Contains(s, "Content-Type: image/png") {
			boards++
		}
	}
	assert.NotZero(t, boards, "no mail with a picture among %d", len(files))
}

// TestDemoMailsOncePerGame: with two games, each mail is written once,
// under the name of the game it belongs to (the players' mailboxes are
// shared by every game of the demo).
func TestDemoMailsOncePerGame(t *testing.T) {
	var codecs []notation.Codec
	for _, id := range []string{"castles", "ziggurat"} {
		c, err := referee.Lookup(id)
		require.NoError(t, err)
		codecs = append(codecs, c)
	}
	dir := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, demoTo(context.Background(), testConfig(t), &out, codecs, 1, 7, dir))
	seen := map[string]string{} // Message-ID -> file
	for _, id := range []string{"castles", "ziggurat"} {
		files, err := filepath.Glob(filepath.Join(dir, id+"-*.eml"))
		require.NoError(t, err)
		require.NotEmpty(t, files, id)
		for _, f := range files {
			raw, err := os.ReadFile(f)
			require.NoError(t, err)
			m, err := mail.Parse(raw)
			require.NoError(t, err)
			other := map[string]string{"castles": "ziggurat", "ziggurat": "castles"}[id]
			assert.NotContains(t, strings.ToLower(m.Subject), other, "%s holds a mail of %s: %q", f, other, m.Subject)
			if prev, ok := seen[m.MessageID]; ok {
				t.Errorf("%s and %s are one mail (%s)", prev, f, m.MessageID)
			}
			seen[m.MessageID] = f
		}
	}
}
