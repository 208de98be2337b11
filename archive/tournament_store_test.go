package archive

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newTournament(t *testing.T, s *Store) *Tournament {
	t.Helper()
	id, err := s.NewTournamentID(context.Background())
	require.NoError(t, err)
	return &Tournament{
		ID: id, Name: "Autumn Cup", Game: "castles", Format: "swiss", Rounds: 4, Days: 3, Rated: true, Seats: 2,
		Director: Address{Name: "Dora", Addr: "dora@example.org"}, DirectorToken: "dddd", Status: Entering, Seed: -7,
		Players: []TournamentPlayer{
			{Address: Address{Name: "Ann", Addr: "ann@example.org"}, Token: "aaaa", Joined: true, Digest: DigestEach},
			{Address: Address{Name: "", Addr: "bob@example.org"}, Token: "bbbb", Digest: DigestDaily},
			{Address: Address{Name: "Cy", Addr: "cy@example.org"}, Token: "cccc", Joined: true, Withdrawn: true, Digest: DigestEach},
		},
	}
}

func TestTournamentRoundTrip(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		tr := newTournament(t, s)
		require.NoError(t, s.Commit(ctx, &Change{At: t0, Tournaments: []*Tournament{tr}}))
		assert.Equal(t, int64(1), tr.Version)
		assert.Equal(t, t0, tr.Created)

		got, err := s.Tournament(ctx, tr.ID)
		require.NoError(t, err)
		assert.Equal(t, tr, withUpdated(got, tr))

		// A round: a game played, a game decided without play, a bye.
		g := newGame(t, s)
		tr.Status = Running
		tr.DigestDue = t0.Add(24 * time.Hour)
		tr.Games = []TournamentGame{
			{Round: 1, Board: 1, GameID: g.ID, Players: []string{"ann@example.org", "bob@example.org"}},
			{Round: 1, Board: 2, Players: []string{"cy@example.org", "dee@example.org"}, Ranks: []int{2, 1}, Forfeit: true},
		}
		tr.Byes = []TournamentBye{{Round: 1, Player: "eve@example.org"}, {Round: 2, Player: "eve@example.org", Kind: ByeHalf},
			{Round: 2, Player: "dee@example.org", Kind: ByeZero}}
		tr.ByesAllowed, tr.Accelerated = 2, true
		require.NoError(t, s.Commit(ctx, &Change{At: t0.Add(time.Hour), Games: []*Game{g}, Tournaments: []*Tournament{tr}}))
		assert.Equal(t, int64(2), tr.Version)
		got, err = s.Tournament(ctx, tr.ID)
		require.NoError(t, err)
		assert.Equal(t, tr, withUpdated(got, tr))
		assert.Nil(t, got.Games[0].Ranks, "a pending game has no ranks")

		byGame, err := s.TournamentOfGame(ctx, g.ID)
		require.NoError(t, err)
		assert.Equal(t, tr.ID, byGame.ID)
		_, err = s.TournamentOfGame(ctx, g.ID+1)
		assert.ErrorIs(t, err, ErrNotFound)
		_, err = s.TournamentOfGame(ctx, 0)
		assert.ErrorIs(t, err, ErrNotFound, "game id 0 (a game decided without play) names no tournament")
		_, err = s.Tournament(ctx, tr.ID+1)
		assert.ErrorIs(t, err, ErrNotFound)

		due, err := s.DueTournaments(ctx, t0.Add(23*time.Hour))
		require.NoError(t, err)
		assert.Empty(t, due)

		// A date set for round 2 makes the tournament due then, even before
		// its digest.
		tr.Opens = map[int]time.Time{2: t0.Add(2 * time.Hour)}
		require.NoError(t, s.Commit(ctx, &Change{Tournaments: []*Tournament{tr}}))
		got, err = s.Tournament(ctx, tr.ID)
		require.NoError(t, err)
		assert.Equal(t, tr.Opens, got.Opens)
		due, err = s.DueTournaments(ctx, t0.Add(2*time.Hour))
		require.NoError(t, err)
		require.Len(t, due, 1, "a round's date has come")
		tr.Opens = nil
		require.NoError(t, s.Commit(ctx, &Change{Tournaments: []*Tournament{tr}}))
		got, err = s.Tournament(ctx, tr.ID)
		require.NoError(t, err)
		assert.Nil(t, got.Opens, "a round's date is dropped once it opened")
		due, err = s.DueTournaments(ctx, t0.Add(23*time.Hour))
		require.NoError(t, err)
		assert.Empty(t, due)
		due, err = s.DueTournaments(ctx, t0.Add(24*time.Hour))
		require.NoError(t, err)
		require.Len(t, due, 1)
		assert.Equal(t, tr.ID, due[0].ID)

		// Ids are never reused.
		id, err := s.NewTournamentID(ctx)
		require.NoError(t, err)
		assert.Greater(t, id, tr.ID)
	})
}

// withUpdated copies the bookkeeping time the store sets into want's
// shape so that the rest compares field by field.
func withUpdated(got, want *Tournament) *Tournament {
	c := *got
	c.Updated = want.Updated
	if len(c.Byes) == 0 && want.Byes == nil {
		c.Byes = nil
	}
	if len(c.Games) == 0 && want.Games == nil {
		c.Games = nil
	}
	return &c
}

func TestTournamentConflict(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		tr := newTournament(t, s)
		require.NoError(t, s.Commit(ctx, &Change{Tournaments: []*Tournament{tr}}))

		a, err := s.Tournament(ctx, tr.ID)
		require.NoError(t, err)
		b, err := s.Tournament(ctx, tr.ID)
		require.NoError(t, err)
		a.Status = Running
		require.NoError(t, s.Commit(ctx, &Change{MessageID: "<a@x>", Tournaments: []*Tournament{a}}))
		b.Status = Finished
		err = s.Commit(ctx, &Change{MessageID: "<b@x>", Tournaments: []*Tournament{b}})
		assert.True(t, errors.Is(err, ErrConflict), "a stale version: %v", err)
		seen, err := s.Seen(ctx, "<b@x>")
		require.NoError(t, err)
		assert.False(t, seen, "a conflicting change stores nothing, not even its message id")
		got, err := s.Tournament(ctx, tr.ID)
		require.NoError(t, err)
		assert.Equal(t, Running, got.Status)

		// Inserting the same id twice is a conflict too.
		dup := newTournament(t, s)
		dup.ID = tr.ID
		assert.ErrorIs(t, s.Commit(ctx, &Change{Tournaments: []*Tournament{dup}}), ErrConflict)
	})
}

// A tournament and the games of its round are stored together or not at
// all.
func TestTournamentCommitIsAtomic(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		tr := newTournament(t, s)
		g := newGame(t, s)
		tr.Games = []TournamentGame{{Round: 1, Board: 1, GameID: g.ID, Players: []string{"ann@example.org", "bob@example.org"}}}
		s.failAt = func(step string) error {
			if step == "players" {
				return errors.New("disk full")
			}
			return nil
		}
		require.Error(t, s.Commit(ctx, &Change{Games: []*Game{g}, Tournaments: []*Tournament{tr}}))
		assert.Equal(t, int64(0), tr.Version)
		_, err := s.Tournament(ctx, tr.ID)
		assert.ErrorIs(t, err, ErrNotFound)
		_, err = s.Game(ctx, g.ID)
		assert.ErrorIs(t, err, ErrNotFound)
		s.failAt = nil
		require.NoError(t, s.Commit(ctx, &Change{Games: []*Game{g}, Tournaments: []*Tournament{tr}}))
		got, err := s.TournamentOfGame(ctx, g.ID)
		require.NoError(t, err)
		assert.Equal(t, tr.ID, got.ID)
	})
}

// A player entered twice is refused, not silently merged.
func TestTournamentPlayerTwice(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		tr := newTournament(t, s)
		tr.Players = append(tr.Players, TournamentPlayer{Address: Address{Name: "", Addr: "ANN@example.org"}, Token: "x"})
		err := s.Commit(ctx, &Change{Tournaments: []*Tournament{tr}})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "entered twice")
		assert.Equal(t, 0, tr.Player("Ann@Example.org "), "Player finds an entrant case-insensitively")
		assert.Equal(t, -1, tr.Player("dee@example.org"))
	})
}
