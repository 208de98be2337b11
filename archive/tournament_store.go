package archive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// tournamentSchema is migration 4: tournaments run by the referee.
const tournamentSchema = `
CREATE TABLE tournament_ids (id INTEGER PRIMARY KEY AUTOINCREMENT);

CREATE TABLE tournaments (
	id             INTEGER PRIMARY KEY,
	name           TEXT    NOT NULL,
	game           TEXT    NOT NULL,
	format         TEXT    NOT NULL,
	rounds         INTEGER NOT NULL,
	days           INTEGER NOT NULL,
	rated          INTEGER NOT NULL,
	seats          INTEGER NOT NULL,
	director       TEXT    NOT NULL,
	director_name  TEXT    NOT NULL,
	director_token TEXT    NOT NULL,
	status         TEXT    NOT NULL,
	seed           INTEGER NOT NULL,
	digest_due     INTEGER NOT NULL,
	created        INTEGER NOT NULL,
	updated        INTEGER NOT NULL,
	version        INTEGER NOT NULL
);
CREATE INDEX tournaments_digest ON tournaments(digest_due) WHERE digest_due > 0;

CREATE TABLE tournament_players (
	tournament_id INTEGER NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
	seed          INTEGER NOT NULL,
	address       TEXT    NOT NULL,
	name          TEXT    NOT NULL,
	token         TEXT    NOT NULL,
	joined        INTEGER NOT NULL,
	withdrawn     INTEGER NOT NULL,
	digest        TEXT    NOT NULL,
	PRIMARY KEY (tournament_id, address)
);
CREATE INDEX tournament_players_address ON tournament_players(address);

CREATE TABLE tournament_games (
	tournament_id INTEGER NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
	seq           INTEGER NOT NULL,
	round         INTEGER NOT NULL,
	board         INTEGER NOT NULL,
	game_id       INTEGER NOT NULL,
	players       TEXT    NOT NULL,
	ranks         TEXT    NOT NULL,
	forfeit       INTEGER NOT NULL,
	PRIMARY KEY (tournament_id, seq)
);
CREATE INDEX tournament_games_game ON tournament_games(game_id) WHERE game_id > 0;

CREATE TABLE tournament_byes (
	tournament_id INTEGER NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
	round         INTEGER NOT NULL,
	address       TEXT    NOT NULL,
	PRIMARY KEY (tournament_id, round, address)
);
`

// tournamentRoundsSchema is migration 5: the dates a director sets for
// rounds to open.
const tournamentRoundsSchema = `
CREATE TABLE tournament_rounds (
	tournament_id INTEGER NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
	round         INTEGER NOT NULL,
	opens         INTEGER NOT NULL,
	PRIMARY KEY (tournament_id, round)
);
CREATE INDEX tournament_rounds_opens ON tournament_rounds(opens);
`

// tournamentCustomsSchema is migration 13: the Swiss customs of club
// events, the half-point byes a player may ask for, accelerated pairings,
// and the kind of each bye.
const tournamentCustomsSchema = `
ALTER TABLE tournaments ADD COLUMN byes INTEGER NOT NULL DEFAULT 1;
ALTER TABLE tournaments ADD COLUMN accelerated INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tournament_byes ADD COLUMN kind TEXT NOT NULL DEFAULT '';
`

// Tournament statuses.
const (
	// Proposed: asked for, not yet confirmed by its director's token;
	// nobody but the director sees it.
	Proposed = "proposed"
	// Entering: players join (or are invited); the director starts it.
	Entering = "entering"
	// Running: rounds are being played.
	Running = "running"
	// Finished: every round has been played.
	Finished = "finished"
)

// Digest preferences of a tournament player.
const (
	// DigestEach: the standings after each result.
	DigestEach = "each"
	// DigestDaily: the standings once a day, when there were results.
	DigestDaily = "daily"
)

// Tournament is an event the referee runs: its settings, players, games
// and byes. The pairing rules live in referee/tournament; this is what is
// stored.
type Tournament struct {
	ID   int64
	Name string
	// Game is the game id in the catalog; Format "roundrobin", "double",
	// "swiss" or "tables".
	Game   string
	Format string
	// Rounds of a Swiss or tables event (0: derived from the players).
	Rounds int
	// Days per move; Rated games count for the ratings; Control is the
	// rest of the games' time control.
	Days    int
	Rated   bool
	Control Control
	// Seats per game (2, or a multi-seat game's table size).
	Seats int
	// ByesAllowed is how many half-point byes a player of a Swiss may ask
	// for; Accelerated pairs its first rounds with the Baku acceleration.
	ByesAllowed int
	Accelerated bool
	// Position is the canonical text of the position every game of the
	// event starts from (a thematic tournament); "" for the rules' start.
	Position string
	// Director is the address that created the tournament; DirectorToken
	// is the secret its commands need.
	Director      Address
	DirectorToken string
	// Status is Proposed, Entering, Running or Finished.
	Status string
	// Seed makes table draws reproducible.
	Seed int64
	// DigestDue is when the daily standings are next sent; zero when no
	// result is waiting for them.
	DigestDue time.Time
	// Players in seed order (entry order).
	Players []TournamentPlayer
	// Games paired so far, in pairing order; Byes given so far.
	Games []TournamentGame
	Byes  []TournamentBye
	// Opens holds the dates the director set for rounds not yet paired
	// to open, whatever is still being played (round -> date).
	Opens            map[int]time.Time
	Created, Updated time.Time
	// Version as for Game (0: not stored yet).
	Version int64
}

// TournamentPlayer is an entrant, or an address asked to confirm its
// entry.
type TournamentPlayer struct {
	Address Address
	// Token is the player's secret for the tournament's commands.
	Token string
	// Joined is true once the player confirmed (with the token).
	Joined bool
	// Withdrawn is true once the player left.
	Withdrawn bool
	// Digest is DigestEach or DigestDaily.
	Digest string
}

// TournamentGame is one game of a round: the referee's game, or a game
// decided without play (GameID 0).
type TournamentGame struct {
	Round, Board int
	GameID       int64
	// Players are the addresses by seat.
	Players []string
	// Ranks by seat once the game has ended; nil while it goes on.
	Ranks []int
	// Forfeit marks a result decided by a withdrawal.
	Forfeit bool
}

// TournamentBye is a round in which a player was not paired.
type TournamentBye struct {
	Round  int
	Player string // address
	// Kind is "" for the pairing-allocated bye, ByeHalf or ByeZero for a
	// round the player asked (or the director said) to miss.
	Kind string
}

// The kinds of requested byes.
const (
	// ByeHalf is a half-point bye the player asked for.
	ByeHalf = "half"
	// ByeZero is a round the player misses, scoring nothing.
	ByeZero = "zero"
)

// Player returns the index of the entrant with the address
// (case-insensitive), or -1.
func (t *Tournament) Player(addr string) int {
	for i, p := range t.Players {
		if strings.EqualFold(p.Address.Addr, strings.TrimSpace(addr)) {
			return i
		}
	}
	return -1
}

// NewTournamentID reserves a new tournament id; ids are never reused.
func (s *Store) NewTournamentID(ctx context.Context) (int64, error) {
	var id int64
	if err := s.db.QueryRowContext(ctx, `INSERT INTO tournament_ids DEFAULT VALUES RETURNING id`).Scan(&id); err != nil {
		return 0, fmt.Errorf("archive: new tournament id: %w", err)
	}
	return id, nil
}

const tournamentColumns = `id, name, game, format, rounds, days, control, rated, seats, director, director_name, director_token,
	status, seed, digest_due, created, updated, version, byes, accelerated, position`

// Tournament returns the tournament with the id, or ErrNotFound.
func (s *Store) Tournament(ctx context.Context, id int64) (*Tournament, error) {
	ts, err := s.tournaments(ctx, `SELECT `+tournamentColumns+` FROM tournaments WHERE id = ?`, id)
	if err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return nil, ErrNotFound
	}
	return ts[0], nil
}

// TournamentOfGame returns the tournament a referee game belongs to, or
// ErrNotFound for a game of no tournament.
func (s *Store) TournamentOfGame(ctx context.Context, gameID int64) (*Tournament, error) {
	if gameID <= 0 {
		return nil, ErrNotFound
	}
	ts, err := s.tournaments(ctx, `SELECT `+tournamentColumns+` FROM tournaments
WHERE id IN (SELECT tournament_id FROM tournament_games WHERE game_id = ?)`, gameID)
	if err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return nil, ErrNotFound
	}
	return ts[0], nil
}

// DueTournaments returns the tournaments that need the clock at now: their
// daily standings are due, or the date set for a round has come; by id.
func (s *Store) DueTournaments(ctx context.Context, now time.Time) ([]*Tournament, error) {
	return s.tournaments(ctx, `SELECT `+tournamentColumns+` FROM tournaments
WHERE (digest_due > 0 AND digest_due <= ?) OR (status = 'running' AND id IN (
	SELECT tournament_id FROM tournament_rounds WHERE opens <= ?))
ORDER BY id`, unix(now), unix(now))
}

func (s *Store) tournaments(ctx context.Context, query string, args ...any) ([]*Tournament, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("archive: tournaments: %w", err)
	}
	var ts []*Tournament
	for rows.Next() {
		var t Tournament
		var due, created, updated int64
		var control string
		if err := rows.Scan(&t.ID, &t.Name, &t.Game, &t.Format, &t.Rounds, &t.Days, &control, &t.Rated, &t.Seats,
			&t.Director.Addr, &t.Director.Name, &t.DirectorToken, &t.Status, &t.Seed, &due, &created, &updated, &t.Version,
			&t.ByesAllowed, &t.Accelerated, &t.Position); err != nil {
			rows.Close()
			return nil, fmt.Errorf("archive: tournaments: %w", err)
		}
		if control != "" {
			if err := json.Unmarshal([]byte(control), &t.Control); err != nil {
				rows.Close()
				return nil, fmt.Errorf("archive: tournament %d control: %w", t.ID, err)
			}
		}
		t.DigestDue, t.Created, t.Updated = fromUnix(due), fromUnix(created), fromUnix(updated)
		ts = append(ts, &t)
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("archive: tournaments: %w", err)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("archive: tournaments: %w", err)
	}
	for _, t := range ts {
		if err := s.tournamentRows(ctx, t); err != nil {
			return nil, fmt.Errorf("archive: tournament %d: %w", t.ID, err)
		}
	}
	return ts, nil
}

// tournamentRows loads the players, games and byes of t.
func (s *Store) tournamentRows(ctx context.Context, t *Tournament) error {
	rows, err := s.db.QueryContext(ctx, `SELECT address, name, token, joined, withdrawn, digest
FROM tournament_players WHERE tournament_id = ? ORDER BY seed`, t.ID)
	if err != nil {
		return err
	}
	for rows.Next() {
		var p TournamentPlayer
		if err := rows.Scan(&p.Address.Addr, &p.Address.Name, &p.Token, &p.Joined, &p.Withdrawn, &p.Digest); err != nil {
			rows.Close()
			return err
		}
		t.Players = append(t.Players, p)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	rows, err = s.db.QueryContext(ctx, `SELECT round, board, game_id, players, ranks, forfeit
FROM tournament_games WHERE tournament_id = ? ORDER BY seq`, t.ID)
	if err != nil {
		return err
	}
	for rows.Next() {
		var g TournamentGame
		var players, ranks string
		if err := rows.Scan(&g.Round, &g.Board, &g.GameID, &players, &ranks, &g.Forfeit); err != nil {
			rows.Close()
			return err
		}
		if err := json.Unmarshal([]byte(players), &g.Players); err != nil {
			rows.Close()
			return fmt.Errorf("game of round %d, board %d: players: %w", g.Round, g.Board, err)
		}
		if ranks != "" {
			if err := json.Unmarshal([]byte(ranks), &g.Ranks); err != nil {
				rows.Close()
				return fmt.Errorf("game of round %d, board %d: ranks: %w", g.Round, g.Board, err)
			}
		}
		t.Games = append(t.Games, g)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	rows, err = s.db.QueryContext(ctx, `SELECT round, opens FROM tournament_rounds WHERE tournament_id = ?`, t.ID)
	if err != nil {
		return err
	}
	for rows.Next() {
		var r int
		var opens int64
		if err := rows.Scan(&r, &opens); err != nil {
			rows.Close()
			return err
		}
		if t.Opens == nil {
			t.Opens = map[int]time.Time{}
		}
		t.Opens[r] = fromUnix(opens)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	rows, err = s.db.QueryContext(ctx, `SELECT round, address, kind FROM tournament_byes WHERE tournament_id = ? ORDER BY round, rowid`, t.ID)
	if err != nil {
		return err
	}
	for rows.Next() {
		var b TournamentBye
		if err := rows.Scan(&b.Round, &b.Player, &b.Kind); err != nil {
			rows.Close()
			return err
		}
		t.Byes = append(t.Byes, b)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	return rows.Err()
}

// putTournament writes t in a commit: inserted at Version 0, else updated
// if its Version is the stored one (ErrConflict otherwise); its players,
// games and byes are rewritten.
func putTournament(ctx context.Context, w *wtx, t *Tournament, at time.Time) error {
	if t.ID <= 0 {
		return errors.New("tournament without an id (reserve one with NewTournamentID)")
	}
	created := t.Created
	if created.IsZero() {
		created = at
	}
	control := ""
	if t.Control != (Control{}) {
		b, err := json.Marshal(t.Control)
		if err != nil {
			return err
		}
		control = string(b)
	}
	if t.Version == 0 {
		err := w.exec(ctx, `INSERT INTO tournaments (`+tournamentColumns+`)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)`,
			[]any{t.ID, t.Name, t.Game, t.Format, t.Rounds, t.Days, control, t.Rated, t.Seats, strings.ToLower(t.Director.Addr), t.Director.Name,
				t.DirectorToken, t.Status, t.Seed, unix(t.DigestDue), unix(created), unix(at), t.ByesAllowed, t.Accelerated, t.Position},
			func(_ int64, err error) error {
				if uniqueViolation(err) {
					return fmt.Errorf("%w: tournament %d exists", ErrConflict, t.ID)
				}
				return err
			})
		if err != nil {
			return err
		}
	} else {
		err := w.exec(ctx, `UPDATE tournaments SET name = ?, game = ?, format = ?, rounds = ?, days = ?, control = ?, rated = ?,
	seats = ?, director = ?, director_name = ?, director_token = ?, status = ?, seed = ?, digest_due = ?, updated = ?,
	byes = ?, accelerated = ?, position = ?, version = version + 1
WHERE id = ? AND version = ?`,
			[]any{t.Name, t.Game, t.Format, t.Rounds, t.Days, control, t.Rated, t.Seats, strings.ToLower(t.Director.Addr), t.Director.Name,
				t.DirectorToken, t.Status, t.Seed, unix(t.DigestDue), unix(at), t.ByesAllowed, t.Accelerated, t.Position, t.ID, t.Version},
			func(n int64, err error) error {
				if err == nil && n == 0 {
					return fmt.Errorf("%w: tournament %d", ErrConflict, t.ID)
				}
				return err
			})
		if err != nil {
			return err
		}
		for _, table := range []string{"tournament_players", "tournament_games", "tournament_byes", "tournament_rounds"} {
			if err := w.exec(ctx, `DELETE FROM `+table+` WHERE tournament_id = ?`, []any{t.ID}, nil); err != nil {
				return err
			}
		}
	}
	for i, p := range t.Players {
		err := w.exec(ctx, `INSERT INTO tournament_players (tournament_id, seed, address, name, token, joined, withdrawn, digest)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, []any{t.ID, i, strings.ToLower(p.Address.Addr), p.Address.Name, p.Token, p.Joined, p.Withdrawn, p.Digest},
			func(_ int64, err error) error {
				if uniqueViolation(err) {
					return fmt.Errorf("tournament %d: %s entered twice", t.ID, p.Address.Addr)
				}
				return err
			})
		if err != nil {
			return err
		}
	}
	for i, g := range t.Games {
		players, err := json.Marshal(g.Players)
		if err != nil {
			return err
		}
		ranks := ""
		if g.Ranks != nil {
			b, err := json.Marshal(g.Ranks)
			if err != nil {
				return err
			}
			ranks = string(b)
		}
		err = w.exec(ctx, `INSERT INTO tournament_games (tournament_id, seq, round, board, game_id, players, ranks, forfeit)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, []any{t.ID, i, g.Round, g.Board, g.GameID, string(players), ranks, g.Forfeit}, nil)
		if err != nil {
			return err
		}
	}
	for r, opens := range t.Opens {
		if opens.IsZero() {
			continue
		}
		err := w.exec(ctx, `INSERT INTO tournament_rounds (tournament_id, round, opens) VALUES (?, ?, ?)`, []any{t.ID, r, unix(opens)}, nil)
		if err != nil {
			return err
		}
	}
	for _, b := range t.Byes {
		err := w.exec(ctx, `INSERT INTO tournament_byes (tournament_id, round, address, kind) VALUES (?, ?, ?, ?)`,
			[]any{t.ID, b.Round, strings.ToLower(b.Player), b.Kind}, nil)
		if err != nil {
			return err
		}
	}
	return nil
}
