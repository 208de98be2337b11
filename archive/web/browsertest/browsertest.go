// Package browsertest starts the headless Chromium that the browser tests
// of the web pages (archive/web) and of the HTML mail (referee) drive with
// chromedp, with one set of flags: a fresh profile, no GPU, and none of
// the browser's own network services, which this project's test machines
// refuse.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Chromium returns the path of the browser, or skips the test (fails it
// when PBEM_REQUIRE_CHROMIUM=1, as CI sets after .ci/chromium.sh).
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("PBEM_REQUIRE_CHROMIUM") == "1" {
		t.Fatal("chromium is not installed and PBEM_REQUIRE_CHROMIUM=1 (run .ci/chromium.sh as root)")
	}
	t.Skip("chromium is not installed (run .ci/chromium.sh as root, or set PBEM_REQUIRE_CHROMIUM=1 to fail instead)")
	return ""
}

// Start starts a headless Chromium (1200 by 1000 pixels) and returns a
// context to drive a tab, bounded to 3 minutes; the browser stops with
// the test.
func Start(t testing.TB) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(Chromium(t)),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1200, 1000),
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(acancel)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	t.Cleanup(cancel)
	ctx, tcancel := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(tcancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// ArtifactDir is where screenshots go: $PBEM_ARTIFACT_DIR, else a
// directory under the system's temporary directory that outlives the test.
func ArtifactDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("PBEM_ARTIFACT_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "pbem-browser-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
