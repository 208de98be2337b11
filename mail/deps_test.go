package mail_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports enforces the layering in ARCHITECTURE.md: mail and its
// subpackages know nothing of games, so they import no pbem package but
// their own and pbem/internal/english (a leaf of English phrases, a byte
// size for people), and no third-party module but go-imap, go-smtp, go-sasl,
// go-message, golang.org/x/net/html (reading HTML mail),
// golang.org/x/net/publicsuffix (aligning domains of Authentication-Results)
// and (in tests) testify.
func TestImports(t *testing.T) {
	allowed := []string{
		"pbem/mail",
		"pbem/internal/english",
		"github.com/emersion/go-imap/v2",
		"github.com/emersion/go-smtp",
		"github.com/emersion/go-sasl",
		"github.com/emersion/go-message",
		"golang.org/x/net/html",
		"golang.org/x/net/publicsuffix",
		"github.com/stretchr/testify",
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(p, "/")
			if !strings.Contains(first, ".") && first != "pbem" {
				continue // standard library
			}
			ok := false
			for _, a := range allowed {
				if p == a || strings.HasPrefix(p, a+"/") {
					ok = true
				}
			}
			if !ok {
				t.Errorf("%s imports %q; mail may import only %v", path, p, allowed)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
