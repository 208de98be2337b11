package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestArchitectureNames keeps ARCHITECTURE.md true: every package it names
// (`pbem/...`) is a directory of Go files, and every function or method it
// names (`mail.Parse`, `mail.(*Poller).Run`, `main.outbox.Due`) is declared
// in that package, outside its tests.
func TestArchitectureNames(t *testing.T) {
	doc, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	dirs := map[string]string{"main": "../cmd/pbem"}
	pkgs := regexp.MustCompile("`(pbem(?:/[a-z0-9]+)*)`").FindAllStringSubmatch(text, -1)
	if len(pkgs) < 10 {
		t.Fatalf("ARCHITECTURE.md names %d packages; expected every package of the module", len(pkgs))
	}
	for _, m := range pkgs {
		dir := filepath.Join("..", strings.TrimPrefix(m[1], "pbem"))
		if go_, _ := filepath.Glob(filepath.Join(dir, "*.go")); len(go_) == 0 {
			t.Errorf("ARCHITECTURE.md names %s, which has no Go files", m[1])
		}
		dirs[filepath.Base(m[1])] = dir
	}
	// pkg.Func, pkg.(*Type).Method, pkg.Type.Method
	names := regexp.MustCompile("`([a-z]+)\\.(?:\\(\\*([A-Za-z]+)\\)\\.|([A-Za-z]+)\\.)?([A-Za-z]+)`").FindAllStringSubmatch(text, -1)
	funcs := 0
	for _, m := range names {
		pkg, ptr, val, name := m[1], m[2], m[3], m[4]
		dir, ok := dirs[pkg]
		if !ok || (ptr == "" && val == "" && !regexp.MustCompile(`^[A-Za-z]`).MatchString(name)) {
			continue
		}
		var decl *regexp.Regexp
		switch {
		case ptr != "":
			decl = regexp.MustCompile(`(?m)^func \(\w+ \*` + ptr + `\) ` + name + `\(`)
		case val != "":
			// a type's method, or a package-level Type.Name that is not one
			decl = regexp.MustCompile(`(?m)^func \(\w+ \*?` + val + `\) ` + name + `\(`)
		default:
			decl = regexp.MustCompile(`(?m)^func ` + name + `\(|^type ` + name + ` `)
		}
		if val != "" && !regexp.MustCompile(`^[a-z]`).MatchString(val) && !declared(t, dir, regexp.MustCompile(`(?m)^type `+val+` `)) {
			continue // pkg.Type.Field or the like, not a method
		}
		funcs++
		if !declared(t, dir, decl) {
			t.Errorf("ARCHITECTURE.md names %s, which %s does not declare", m[0], dir)
		}
	}
	if funcs < 15 {
		t.Errorf("ARCHITECTURE.md names %d functions; expected the way of a mail named step by step", funcs)
	}
}

// declared reports whether a non-test Go file of dir matches decl.
func declared(t *testing.T, dir string, decl *regexp.Regexp) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if decl.Match(b) {
			return true
		}
	}
	return false
}
