package web

import (
	"context"
	"errors"
	"html/template"
	"strconv"
	"strings"

	"pbem/archive"
)

// TournamentView is a tournament the referee runs, as its event page shows
// it: plain data that the program fills in from the store and the rules
// of pairing and standings, which this package does not know. It names
// players, never their addresses.
type TournamentView struct {
	// ID is the tournament's number (T3); Name its name, the Event of its
	// games.
	ID   int64
	Name string
	// Game is the game id; Format says how it is played ("Swiss", "round
	// robin", "tables of 3").
	Game, Format string
	// Status is "entering", "running" or "finished".
	Status string
	// Joined names the players who have joined a tournament that has not
	// started.
	Joined []string
	// Rounds is the number of rounds; Completed those whose games have all
	// ended, counting from round 1.
	Rounds, Completed int
	// TieBreaks name the tie-break columns of the standings, in order
	// ("Sonneborn-Berger"; "Buchholz", "median Buchholz").
	TieBreaks []string
	// Standings by rank.
	Standings []TournamentStanding
	// Pairings of every round paired so far, from round 1.
	Pairings []TournamentRound
	// Note says how byes, forfeits and ties count ("" for none).
	Note string
}

// TournamentStanding is one player's row of the standings.
type TournamentStanding struct {
	// Rank is 1 for the best; equal rows share a rank.
	Rank int
	Name string
	// Score in points ("2.5") and the tie-breaks, one per
	// TournamentView.TieBreaks ("6.25"), as the standings mail writes them.
	Score     string
	TieBreaks []string
	// Games ended (forfeits included) and byes.
	Games, Byes int
	Withdrawn   bool
}

// TournamentRound is the pairing of one round.
type TournamentRound struct {
	Number int
	// Games by board.
	Games []TournamentGame
	// Byes name the players who sat out with the pairing-allocated bye;
	// HalfByes those with a half-point bye they asked for, Absent those
	// who missed the round (Swiss).
	Byes, HalfByes, Absent []string
}

// TournamentGame is one game of a round: two players or a table.
type TournamentGame struct {
	Board int
	// GameID is the referee's game; 0 for a game decided without play.
	GameID int64
	// Players name the seats; the first moves first.
	Players []string
	// Ranks by seat once the game has ended (1 best, equal ranks share a
	// place); nil while it goes on.
	Ranks []int
	// Forfeit marks a result decided by a withdrawal.
	Forfeit bool
}

// tournamentSection is a tournament as the event template draws it.
type tournamentSection struct {
	*TournamentView
	// Entrants are Joined, Table the Standings and Rounds the Pairings,
	// with their links.
	Entrants []nameLink
	Table    []tournamentRow
	Paired   []roundRows
}

type tournamentRow struct {
	TournamentStanding
	Player nameLink
}

type roundRows struct {
	Number                 int
	Games                  []pairingRow
	Byes, HalfByes, Absent []nameLink
}

type pairingRow struct {
	Board   int
	Players []nameLink
	// Game is the link to the game's page ("" when there is none to show:
	// no game, a private one, or one a static site does not hold); ID its
	// number.
	Game, ID string
	Result   string
}

// tournaments returns the sections of the tournaments run under event.
func (s *Server) tournaments(ctx context.Context, event string, k linker) ([]tournamentSection, error) {
	if s.opts.Tournaments == nil {
		return nil, nil
	}
	vs, err := s.opts.Tournaments(ctx, event)
	if err != nil {
		return nil, err
	}
	var out []tournamentSection
	for _, v := range vs {
		sec := tournamentSection{TournamentView: v}
		for _, n := range v.Joined {
			// Not linked: an entrant may have no game, hence no page, yet.
			sec.Entrants = append(sec.Entrants, nameLink{Name: n})
		}
		for _, st := range v.Standings {
			sec.Table = append(sec.Table, tournamentRow{TournamentStanding: st, Player: k.player(st.Name)})
		}
		for _, r := range v.Pairings {
			rr := roundRows{Number: r.Number}
			for _, g := range r.Games {
				row := pairingRow{Board: g.Board, Result: pairingResult(g)}
				for _, n := range g.Players {
					row.Players = append(row.Players, k.player(n))
				}
				if g.GameID > 0 {
					shown, err := s.shownGame(ctx, g.GameID, k)
					if err != nil {
						return nil, err
					}
					if shown {
						row.ID = strconv.FormatInt(g.GameID, 10)
						row.Game = k.url("/g/" + row.ID)
					}
				}
				rr.Games = append(rr.Games, row)
			}
			for _, n := range r.Byes {
				rr.Byes = append(rr.Byes, k.player(n))
			}
			for _, n := range r.HalfByes {
				rr.HalfByes = append(rr.HalfByes, k.player(n))
			}
			for _, n := range r.Absent {
				rr.Absent = append(rr.Absent, k.player(n))
			}
			sec.Paired = append(sec.Paired, rr)
		}
		out = append(out, sec)
	}
	return out, nil
}

// shownGame reports whether the page of referee game id may be linked:
// on the server, the game exists and is not private; in a static site, its
// page was written (private games never are).
func (s *Server) shownGame(ctx context.Context, id int64, k linker) (bool, error) {
	if k.site != nil {
		return k.written("/g/" + strconv.FormatInt(id, 10)), nil
	}
	g, err := s.store.Game(ctx, id)
	switch {
	case errors.Is(err, archive.ErrNotFound):
		return false, nil
	case err != nil:
		return false, err
	}
	return !s.hidden(g), nil
}

// pairingResult is a game's result: "1-0", "0-1", "1/2-1/2" for two
// players, the places by seat for a table ("1, 3, 2"), "" while the game
// goes on; "(forfeit)" follows a result decided by a withdrawal.
func pairingResult(g TournamentGame) string {
	if g.Ranks == nil {
		return ""
	}
	var r string
	switch {
	case len(g.Ranks) == 2 && g.Ranks[0] < g.Ranks[1]:
		r = "1-0"
	case len(g.Ranks) == 2 && g.Ranks[0] > g.Ranks[1]:
		r = "0-1"
	case len(g.Ranks) == 2:
		r = "1/2-1/2"
	default:
		ps := make([]string, len(g.Ranks))
		for i, k := range g.Ranks {
			ps[i] = strconv.Itoa(k)
		}
		r = "places " + strings.Join(ps, ", ")
	}
	if g.Forfeit {
		r += " (forfeit)"
	}
	return r
}

// The tournament section of the event page.
var _ = template.Must(pages.New("tournament").Parse(`{{define "names"}}{{range $i, $p := .}}{{if $i}}, {{end}}{{if $p.URL}}<a href="{{$p.URL}}">{{$p.Name}}</a>{{else}}{{$p.Name}}{{end}}{{end}}{{end}}
{{define "tournament"}}<section class="tournament" id="T{{.ID}}">
<h2>Tournament T{{.ID}}</h2>
<p class="meta">{{.Game}}, {{.Format}}{{if .Rounds}}, {{.Rounds}} round{{if ne .Rounds 1}}s{{end}}{{end}} &middot; {{.Status}}{{if ne .Status "entering"}} &middot; {{if .Completed}}after round {{.Completed}} of {{.Rounds}}{{else}}no round completed{{end}}{{end}}</p>
{{if eq .Status "entering"}}<p>The tournament has not started; {{len .Entrants}} joined{{if .Entrants}}: {{template "names" .Entrants}}{{end}}.</p>
{{else}}<h3>Standings</h3>
<table class="standings"><tr><th>#</th><th>player</th><th>points</th>{{range .TieBreaks}}<th>{{.}}</th>{{end}}<th>games</th><th>byes</th><th></th></tr>
{{range .Table}}<tr><td>{{.Rank}}</td><td>{{if .Player.URL}}<a href="{{.Player.URL}}">{{.Player.Name}}</a>{{else}}{{.Player.Name}}{{end}}</td><td>{{.Score}}</td>{{range .TieBreaks}}<td>{{.}}</td>{{end}}<td>{{.Games}}</td><td>{{.Byes}}</td><td>{{if .Withdrawn}}withdrew{{end}}</td></tr>
{{end}}</table>
{{if .Note}}<p class="meta">{{.Note}}</p>{{end}}
<h3>Pairings</h3>
{{range .Paired}}<h4 id="T{{$.ID}}-round-{{.Number}}">Round {{.Number}}</h4>
<table class="pairings"><tr><th>board</th><th>players</th><th>game</th><th>result</th></tr>
{{range .Games}}<tr><td>{{.Board}}</td><td>{{template "names" .Players}}</td><td>{{if .Game}}<a href="{{.Game}}">game {{.ID}}</a>{{end}}</td><td>{{.Result}}</td></tr>
{{end}}</table>
{{if .Byes}}<p>Bye: {{template "names" .Byes}}.</p>{{end}}{{if .HalfByes}}
<p>Half-point bye: {{template "names" .HalfByes}}.</p>{{end}}{{if .Absent}}
<p>Absent: {{template "names" .Absent}}.</p>{{end}}
{{else}}<p>No round has been paired yet.</p>
{{end}}{{end}}</section>
{{end}}`))
