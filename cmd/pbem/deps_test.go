package main

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// allowed says which of our packages and which modules a package may import
// (ARCHITECTURE.md): engine < engine/<game>; engine, engine/<game>,
// participle < notation < notation/<game>; engine, notation, archive <
// referee, but engine and archive/score (the one scoring, pure) only <
// referee/tournament (pure rules of pairing and standings); mail/envelope
// (plain types shared by reference: the outgoing mail, addresses, inline parts, the
// Auto-Submitted values; standard library only) < mail, archive; SQLite, pgx (PostgreSQL) and confusables (TR39 skeletons of names) < archive; go-imap, go-smtp, go-message, golang.org/x/net/html and publicsuffix < mail;
// klauspost/compress < engine/picture; everything < cmd. The standard library is always allowed, and so is
// internal/english (English phrases several packages say alike; standard library only) but in engine and
// mail/envelope, which import nothing of pbem. Test files are not checked.
func allowed(pkg, imp string) bool {
	game := func(p, parent string) (string, bool) {
		rest, ok := strings.CutPrefix(p, parent+"/")
		return rest, ok && !strings.Contains(rest, "/")
	}
	isStd := !strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") && !strings.HasPrefix(imp, "pbem")
	if isStd {
		return true
	}
	if imp == "pbem/internal/english" { // a leaf of English phrases
		return pkg != "pbem/engine" && pkg != "pbem/mail/envelope" // these import nothing of pbem
	}
	participle := strings.HasPrefix(imp, "github.com/alecthomas/participle/")
	switch {
	case strings.HasPrefix(pkg, "pbem/cmd/"):
		return true
	case pkg == "pbem/engine", pkg == "pbem/docs":
		return false
	case pkg == "pbem/engine/enginetest":
		return imp == "pbem/engine"
	case pkg == "pbem/engine/picture":
		// draws a Layout as SVG and PNG: the vector rasteriser and the Go
		// fonts of golang.org/x/image, and klauspost/compress's deflate
		// for the PNG's rows (a quarter of the standard library's time)
		return imp == "pbem/engine" || strings.HasPrefix(imp, "golang.org/x/image/") ||
			strings.HasPrefix(imp, "github.com/klauspost/compress/")
	case strings.HasPrefix(pkg, "pbem/engine/"):
		return imp == "pbem/engine"
	case pkg == "pbem/notation":
		return imp == "pbem/engine" || participle
	case strings.HasPrefix(pkg, "pbem/notation/"):
		g, _ := game(pkg, "pbem/notation")
		ig, isGame := game(imp, "pbem/engine")
		return imp == "pbem/engine" || imp == "pbem/notation" || participle || isGame && ig == g
	case pkg == "pbem/archive/web/browsertest": // test support: the browser tests' Chromium
		return strings.HasPrefix(imp, "github.com/chromedp/")
	case pkg == "pbem/archive/web":
		// the web face: reads the store, draws through engine; the
		// catalog is passed in, so no game (and never mail or referee)
		return imp == "pbem/engine" || imp == "pbem/engine/picture" || imp == "pbem/notation" || imp == "pbem/archive"
	case pkg == "pbem/mail/envelope":
		return false // a leaf: the types mail and the store share
	case pkg == "pbem/internal/english":
		return false // a leaf: every package may import it
	case pkg == "pbem/archive/pgtest": // test support: a private PostgreSQL cluster
		return strings.HasPrefix(imp, "github.com/jackc/pgx/v5")
	case pkg == "pbem/archive/archivetest": // test support: a fresh store of each backend
		return imp == "pbem/archive" || imp == "pbem/archive/pgtest"
	case strings.HasPrefix(pkg, "pbem/archive"):
		return imp == "pbem/engine" || imp == "pbem/notation" || strings.HasPrefix(imp, "pbem/archive") ||
			imp == "pbem/mail/envelope" || strings.HasPrefix(imp, "modernc.org/sqlite") || strings.HasPrefix(imp, "github.com/jackc/pgx/v5") ||
			imp == "golang.org/x/text/unicode/norm" || imp == "github.com/mtibben/confusables"
	case pkg == "pbem/referee/tournament":
		return imp == "pbem/engine" || imp == "pbem/archive/score"
	case strings.HasPrefix(pkg, "pbem/referee"):
		_, eg := game(imp, "pbem/engine")
		_, ng := game(imp, "pbem/notation")
		return imp == "pbem/engine" || imp == "pbem/notation" || strings.HasPrefix(imp, "pbem/archive") ||
			strings.HasPrefix(imp, "pbem/referee") || eg && imp != "pbem/engine/enginetest" || ng
	case strings.HasPrefix(pkg, "pbem/mail"):
		return strings.HasPrefix(imp, "pbem/mail") || strings.HasPrefix(imp, "github.com/emersion/") ||
			imp == "golang.org/x/net/html" || strings.HasPrefix(imp, "golang.org/x/net/html/") ||
			imp == "golang.org/x/net/publicsuffix"
	}
	return false
}

func TestImportsFollowTheArchitecture(t *testing.T) {
	root := "../.."
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(path, 0)
		if err != nil {
			return nil // no Go files here
		}
		rel, _ := filepath.Rel(root, path)
		pkg := "pbem/" + filepath.ToSlash(rel)
		n++
		for _, imp := range p.Imports {
			if !allowed(pkg, imp) {
				t.Errorf("%s imports %s, which ARCHITECTURE.md does not allow", pkg, imp)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 5 {
		t.Fatalf("checked only %d packages; is the walk rooted right?", n)
	}
}

func TestAllowedRules(t *testing.T) {
	for _, c := range []struct {
		pkg, imp string
		want     bool
	}{
		{"pbem/engine", "fmt", true},
		{"pbem/engine", "pbem/notation", false},
		{"pbem/engine/castles", "pbem/engine", true},
		{"pbem/engine/castles", "pbem/engine/rpp", false},
		{"pbem/notation/castles", "pbem/engine/castles", true},
		{"pbem/notation/castles", "pbem/engine/rpp", false},
		{"pbem/notation", "pbem/referee", false},
		{"pbem/mail", "pbem/referee", false},
		{"pbem/referee", "pbem/mail", false},
		{"pbem/referee", "pbem/notation/castles", true},
		{"pbem/mail", "github.com/emersion/go-imap/v2", true},
		{"pbem/mail", "golang.org/x/net/html", true},
		{"pbem/mail", "golang.org/x/net/html/atom", true},
		{"pbem/mail", "golang.org/x/net/http2", false},
		{"pbem/mail", "golang.org/x/net/publicsuffix", true},
		{"pbem/referee", "golang.org/x/net/publicsuffix", false},
		{"pbem/referee", "golang.org/x/net/html", false},
		{"pbem/engine", "github.com/alecthomas/participle/v2", false},
		{"pbem/archive/web", "pbem/archive", true},
		{"pbem/archive/web", "pbem/engine", true},
		{"pbem/archive/web", "pbem/notation", true},
		{"pbem/archive/web", "html/template", true},
		{"pbem/archive/web", "pbem/referee", false},
		{"pbem/archive/web", "pbem/mail", false},
		{"pbem/archive/web", "pbem/engine/castles", false},
		{"pbem/archive/web", "modernc.org/sqlite", false},
		{"pbem/archive/web", "github.com/chromedp/chromedp", false},
		{"pbem/archive", "github.com/jackc/pgx/v5/stdlib", true},
		{"pbem/archive", "github.com/jackc/pgx/v5/pgconn", true},
		{"pbem/archive/web", "github.com/jackc/pgx/v5/stdlib", false},
		{"pbem/archive/pgtest", "github.com/jackc/pgx/v5/stdlib", true},
		{"pbem/archive/pgtest", "pbem/archive", false},
		{"pbem/archive/archivetest", "pbem/archive/pgtest", true},
		{"pbem/archive/archivetest", "pbem/engine", false},
		{"pbem/referee", "github.com/jackc/pgx/v5", false},
		{"pbem/referee/tournament", "pbem/engine", true},
		{"pbem/referee/tournament", "pbem/archive", false},
		{"pbem/referee/tournament", "pbem/notation", false},
		{"pbem/referee/tournament", "pbem/referee", false},
		{"pbem/archive", "pbem/mail/envelope", true},
		{"pbem/archive", "pbem/mail", false},
		{"pbem/mail", "pbem/mail/envelope", true},
		{"pbem/mail/envelope", "pbem/mail", false},
		{"pbem/mail/envelope", "net/mail", true},
		{"pbem/archive/web", "pbem/mail/envelope", false},
		{"pbem/engine/ziggurat", "pbem/internal/english", true},
		{"pbem/notation", "pbem/internal/english", true},
		{"pbem/mail", "pbem/internal/english", true},
		{"pbem/mail/envelope", "pbem/internal/english", false},
		{"pbem/engine", "pbem/internal/english", false},
		{"pbem/internal/english", "pbem/engine", false},
		{"pbem/internal/english", "strconv", true},
	} {
		if got := allowed(c.pkg, c.imp); got != c.want {
			t.Errorf("allowed(%s, %s) = %v, want %v", c.pkg, c.imp, got, c.want)
		}
	}
}
