package mail_test

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"mime"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/emersion/go-message"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/mail"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// mimeTree writes the structure of a message, one part a line, indented
// by depth: its media type, transfer encoding, Content-ID and
// disposition, and its size once decoded.
func mimeTree(t *testing.T, raw []byte) string {
	t.Helper()
	e, err := message.Read(bytes.NewReader(raw))
	require.NoError(t, err)
	var b strings.Builder
	var walk func(e *message.Entity, depth int)
	walk = func(e *message.Entity, depth int) {
		mt, params, _ := e.Header.ContentType()
		fmt.Fprintf(&b, "%s%s", strings.Repeat("  ", depth), mt)
		if cs := params["charset"]; cs != "" {
			fmt.Fprintf(&b, "; charset=%s", cs)
		}
		if enc := e.Header.Get("Content-Transfer-Encoding"); enc != "" {
			fmt.Fprintf(&b, " (%s)", enc)
		}
		if id := e.Header.Get("Content-Id"); id != "" {
			fmt.Fprintf(&b, " id=%s", id)
		}
		if d := e.Header.Get("Content-Disposition"); d != "" {
			disp, _, _ := mime.ParseMediaType(d)
			fmt.Fprintf(&b, " %s", disp)
		}
		if mr := e.MultipartReader(); mr != nil {
			b.WriteString("\n")
			for {
				p, err := mr.NextPart()
				if err == io.EOF {
					break
				}
				require.NoError(t, err)
				walk(p, depth+1)
			}
			return
		}
		body, err := io.ReadAll(e.Body)
		require.NoError(t, err)
		fmt.Fprintf(&b, " %d bytes\n", len(body))
	}
	walk(e, 0)
	return b.String()
}

// TestComposeHTML: a mail with an HTML part and an image is
// multipart/alternative (text first, then the HTML and its image in a
// multipart/related), every part decodes to what was given, the reader of
// inbound mail still takes the text part, and the bytes are the same on a
// retry.
func TestComposeHTML(t *testing.T) {
	png := bytes.Repeat([]byte{0x89, 'P', 'N', 'G', 0, 0xff}, 100)
	html := "<!doctype html>\n<html><body><p>Ply 3: your move \u2014 " + strings.Repeat("x", 200) + "</p>\n<img src=\"cid:board.r1@pbem.local\" alt=\"the board\"></body></html>\n"
	o := &mail.Outgoing{
		From:          mail.Address{Name: "pbem referee", Addr: "referee@pbem.local"},
		To:            []mail.Address{{Addr: "alice@pbem.local"}},
		Subject:       "[pbem #12] rpp",
		Date:          date,
		MessageID:     "r1@pbem.local",
		Text:          "Ply 3: your move.\n\n   a b\n 1 . X   \n-- \npbem\n",
		HTML:          html,
		Inline:        []mail.Inline{{ContentID: "board.r1@pbem.local", ContentType: "image/png", Filename: "board.png", Data: png}},
		AutoSubmitted: mail.AutoReplied,
	}
	raw := mail.Compose(o)
	assert.Equal(t, raw, mail.Compose(o), "Compose is not deterministic")
	golden(t, "testdata/compose/html.tree", mimeTree(t, raw))

	e, err := message.Read(bytes.NewReader(raw))
	require.NoError(t, err)
	var parts []string
	require.NoError(t, e.Walk(func(path []int, p *message.Entity, err error) error {
		if err != nil || p.MultipartReader() != nil {
			return err
		}
		body, err := io.ReadAll(p.Body)
		parts = append(parts, string(body))
		return err
	}))
	require.Len(t, parts, 3)
	assert.Equal(t, strings.ReplaceAll(o.Text, "\n", "\r\n"), parts[0])
	assert.Equal(t, strings.ReplaceAll(html, "\n", "\r\n"), parts[1])
	assert.Equal(t, string(png), parts[2])

	in, err := mail.Parse(raw)
	require.NoError(t, err)
	assert.Equal(t, strings.TrimRight(o.Text, "\n"), strings.TrimRight(in.Text, "\n"))
	assert.Equal(t, "auto-replied", in.AutoSubmitted)
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with -update to write it")
	assert.Equal(t, string(want), got, "%s differs (run with -update to rewrite it)", path)
}
