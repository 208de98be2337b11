package web

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pbem/archive"
)

// TestNotesOnNoPage: a player's private notes on a finished public game
// are on none of its pages (the game, its record for download, the
// players' pages, the archive), nor in the static site or an export of
// the archive.
func TestNotesOnNoPage(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	g := addGame(t, fx.store, archive.Over, archive.GameOptions{}, "Notes Cup", "", "Nora", "Otto")
	const secret = "SECRET-NOTE-TEXT"
	if err := fx.store.Commit(ctx, &archive.Change{Notes: []*archive.Note{
		{GameID: g.ID, Addr: g.Seats[0].Player.Addr, Text: secret + " of Nora"},
		{GameID: g.ID, Addr: g.Seats[1].Player.Addr, Text: secret + " of Otto"},
	}}); err != nil {
		t.Fatal(err)
	}
	if ns, err := fx.store.Notes(ctx, g.ID, g.Seats[0].Player.Addr); err != nil || len(ns) != 1 {
		t.Fatalf("Notes = %v, %v; want Nora's one note stored", ns, err)
	}
	paths := []string{fmt.Sprintf("/g/%d", g.ID), fmt.Sprintf("/g/%d.pgn", g.ID), "/players/Nora", "/players/Otto",
		"/archive", "/archive?player=nora", "/", "/events/" + "Notes%20Cup"}
	for _, path := range paths {
		code, body, _ := get(t, fx.srv, path)
		if code != 200 {
			t.Errorf("GET %s = %d, want 200 (the page must exist for the check to mean anything)", path, code)
		}
		if strings.Contains(body, secret) {
			t.Errorf("GET %s shows a private note", path)
		}
	}
	dir := t.TempDir()
	if _, err := fx.srv.WriteSite(ctx, dir, nil); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, []byte(secret)) {
			t.Errorf("the static site's %s shows a private note", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var exp bytes.Buffer
	n, err := fx.store.Export(ctx, &exp, lookup, archive.Filter{}, nil)
	if err != nil || n == 0 {
		t.Fatalf("Export = %d, %v; want the archived games", n, err)
	}
	if bytes.Contains(exp.Bytes(), []byte(secret)) {
		t.Error("the export holds a private note")
	}
}

// TestPublishedAnalysisOnGamePage: a finished game's page shows the
// computer's analysis once a player published it, not before.
func TestPublishedAnalysisOnGamePage(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	g := addGame(t, fx.store, archive.Over, archive.GameOptions{}, "Analysis Cup", "", "Nora", "Otto")
	a := &archive.Analysis{GameID: g.ID, Addr: g.Seats[0].Player.Addr, Level: 3}
	if err := fx.store.Commit(ctx, &archive.Change{Analyses: []*archive.Analysis{a}}); err != nil {
		t.Fatal(err)
	}
	a.Status, a.Text = archive.AnalysisDone, "ANALYSIS-TEXT 1. Ca1-b2?? (1. Ca1-a2)"
	if err := fx.store.Commit(ctx, &archive.Change{Analyses: []*archive.Analysis{a}}); err != nil {
		t.Fatal(err)
	}
	path := fmt.Sprintf("/g/%d", g.ID)
	if _, body, _ := get(t, fx.srv, path); strings.Contains(body, "ANALYSIS-TEXT") || strings.Contains(body, "The computer&#39;s analysis") {
		t.Errorf("GET %s shows an analysis nobody published", path)
	}
	pub := *a
	pub.Published = true
	if err := fx.store.Commit(ctx, &archive.Change{Analyses: []*archive.Analysis{&pub}}); err != nil {
		t.Fatal(err)
	}
	code, body, _ := get(t, fx.srv, path)
	if code != 200 || !strings.Contains(body, "ANALYSIS-TEXT 1. Ca1-b2?? (1. Ca1-a2)") {
		t.Errorf("GET %s = %d without the published analysis:\n%s", path, code, body)
	}
}
