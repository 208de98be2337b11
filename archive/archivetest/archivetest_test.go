package archivetest

import (
	"context"
	"testing"

	"pbem/archive"
)

func TestMain(m *testing.M) { Main(m) }

// TestEach gives a fresh store of each backend, which stores a change.
func TestEach(t *testing.T) {
	var got []string
	Each(t, nil, func(t *testing.T, s *archive.Store) {
		got = append(got, s.Backend())
		ctx := context.Background()
		id, err := s.NewGameID(ctx)
		if err != nil || id != 1 {
			t.Fatalf("NewGameID = %d, %v; want 1, nil (a fresh store)", id, err)
		}
		if err := s.Commit(ctx, &archive.Change{MessageID: "m1"}); err != nil {
			t.Fatal(err)
		}
		if seen, err := s.Seen(ctx, "m1"); err != nil || !seen {
			t.Fatalf("Seen(m1) = %v, %v; want true, nil", seen, err)
		}
	})
	if len(got) == 0 || got[0] != archive.SQLite {
		t.Errorf("backends run: %v; want sqlite first", got)
	}
}
