// Package analysis annotates a game record by the computer player
// (engine/bot): at each ply where the computer's choice scores clearly
// better than the ply played, the ply gets "?" (a mistake) or "??" (a
// blunder) and the computer's line as a variation, with the estimated
// score change in a comment; a summary comment per side ends the game.
//
// Scores are the bot's own: the expected reward (0 a loss, 1/2 a draw, 1 a
// win; in games of more sides, the share of the others ranked below, see
// bot.Rewards) of the side that moved, estimated by the same search the bot
// plays with, run from the position after the ply played and from the
// position after the computer's choice. The loss of a ply is the
// difference, never below zero. Searches are counted in playouts with a
// fixed seed, so at levels 1 to 4 the same record gets the same annotation
// every time, as long as no ply reaches its time bound (Report.TimeUp).
package analysis

import (
	"context"
	"errors"
	"fmt"
	"time"

	"pbem/engine"
	"pbem/engine/bot"
	"pbem/notation"
)

// Thresholds, as losses of expected score (0 to 1) of the side that moved.
const (
	// MistakeLoss is the smallest loss marked "?".
	MistakeLoss = 0.10
	// BlunderLoss is the smallest loss marked "??".
	BlunderLoss = 0.25
)

// VariationPlies is the longest line of the computer's given.
const VariationPlies = 6

// DefaultSeed seeds every analysis's searches unless Options.Seed says
// otherwise.
const DefaultSeed = 43

// DefaultPlyTime bounds the searches of one ply (its scores and its
// variation) unless Options.PlyTime says otherwise.
const DefaultPlyTime = 60 * time.Second

// Options configure Annotate.
type Options struct {
	// Level of the computer player, 1 to bot.MaxLevel (0 means 3).
	Level int
	// Seed of the searches (0 means DefaultSeed).
	Seed uint64
	// PlyTime bounds the searches of one ply (0 means DefaultPlyTime).
	PlyTime time.Duration
	// Side, when not nil, limits the analysis to the plies of that seat.
	Side *int
	// Yield, when set, is called before each ply's searches: a referee
	// makes the analysis wait there while it has moves to handle. Its
	// error ends the analysis.
	Yield func(ctx context.Context) error
}

// SideReport sums up one side's analysed plies.
type SideReport struct {
	Side      string
	Plies     int
	Mistakes  int
	Blunders  int
	TotalLoss float64
}

// AverageLoss is the mean loss per analysed ply.
func (s SideReport) AverageLoss() float64 {
	if s.Plies == 0 {
		return 0
	}
	return s.TotalLoss / float64(s.Plies)
}

// Report is what Annotate found.
type Report struct {
	Sides []SideReport // analysed sides, in seat order
	// TimeUp counts the plies whose searches reached Options.PlyTime: their
	// scores depend on the machine's speed.
	TimeUp int
}

// Annotator is the name the annotated record's Annotator tag gets.
func Annotator(level int) string { return fmt.Sprintf("pbem bot (level %d)", level) }

// Annotate analyses a checked game (g.Record is changed: annotations,
// variations, comments and the Annotator tag are added; nothing of it is
// removed) and returns the annotated record, checked again, in canonical
// form.
func Annotate(ctx context.Context, g *notation.Game, lookup notation.Lookup, o Options) (string, *Report, error) {
	if o.Level == 0 {
		o.Level = 3
	}
	if o.Level < 1 || o.Level > bot.MaxLevel {
		return "", nil, fmt.Errorf("analysis: no level %d; expected 1 to %d (level 0 moves at random and cannot judge)", o.Level, bot.MaxLevel)
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	if o.PlyTime == 0 {
		o.PlyTime = DefaultPlyTime
	}
	if o.Side != nil && (*o.Side < 0 || *o.Side >= len(g.Sides)) {
		return "", nil, fmt.Errorf("analysis: no seat %d; the game has %d sides", *o.Side, len(g.Sides))
	}
	b, _ := bot.LevelBudget(o.Level)
	if o.Level < bot.MaxLevel {
		b.Time = 0 // playouts only: the same annotation every time
	}
	p, err := bot.NewBudget(b, o.Seed)
	if err != nil {
		return "", nil, err
	}
	a := &annotator{p: p, g: g}
	rep := &Report{}
	sides := make([]SideReport, len(g.Sides))
	for i := range sides {
		sides[i].Side = g.Sides[i]
	}
	plies := g.Record.Main.Plies
	n := min(len(g.Moves), len(plies))
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return "", nil, fmt.Errorf("analysis: %w", err)
		}
		if o.Yield != nil {
			if err := o.Yield(ctx); err != nil {
				return "", nil, fmt.Errorf("analysis: %w", err)
			}
		}
		before := g.Lines[i]
		if before.Outcome().Over {
			break
		}
		if _, leave := g.Moves[i].(engine.Leave); leave {
			continue
		}
		mover := before.State().ToMove()
		if o.Side != nil && mover != *o.Side {
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, o.PlyTime)
		j, err := a.judge(pctx, i, mover)
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return "", nil, err
		}
		if j.timeUp || err != nil {
			rep.TimeUp++
		}
		if err != nil {
			continue
		}
		sd := &sides[mover]
		sd.Plies++
		sd.TotalLoss += j.loss
		if j.loss < MistakeLoss {
			continue
		}
		mark := "?"
		if j.loss >= BlunderLoss {
			mark = "??"
			sd.Blunders++
		} else {
			sd.Mistakes++
		}
		ply := plies[i]
		if len(ply.Annots) == 0 {
			ply.Annots = []string{mark}
		}
		var vplies []*notation.Ply
		l := before
		for _, m := range j.line {
			vplies = append(vplies, &notation.Ply{Text: g.Codec.Encode(l.State(), m)})
			if l, err = l.Play(m); err != nil {
				return "", nil, fmt.Errorf("analysis: the computer's line is illegal at ply %d: %w", i+1, err)
			}
		}
		vplies[0].Comments = []string{fmt.Sprintf("%s %s: %s scores %.2f with this line, %.2f after %s (%+.2f)",
			mark, Annotator(o.Level), g.Sides[mover], j.best, j.played, ply.Canon, -j.loss)}
		ply.Variations = append(ply.Variations, &notation.Line{Plies: vplies})
	}
	for i, sd := range sides {
		if o.Side != nil && i != *o.Side || sd.Plies == 0 {
			continue
		}
		rep.Sides = append(rep.Sides, sd)
	}
	if n > 0 {
		last := plies[n-1]
		for _, sd := range rep.Sides {
			last.Comments = append(last.Comments, fmt.Sprintf("%s on %s: %s analysed, %s (?), %s (??), average loss %.3f",
				Annotator(o.Level), sd.Side, count(sd.Plies, "ply", "plies"), count(sd.Mistakes, "mistake", "mistakes"),
				count(sd.Blunders, "blunder", "blunders"), sd.AverageLoss()))
		}
	}
	r := g.Record
	if v, ok := r.Tag("Annotator"); ok && v != "" {
		r.SetTag("Annotator", v+"; "+Annotator(o.Level))
	} else {
		r.SetTag("Annotator", Annotator(o.Level))
	}
	cg, problems := notation.Check(r, lookup)
	if cg == nil || len(problems) > 0 {
		return "", nil, fmt.Errorf("analysis: the annotated record does not check: %v", problems)
	}
	return notation.Format(cg), rep, nil
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

type annotator struct {
	p *bot.Player
	g *notation.Game
}

// judgement is the analysis of one ply.
type judgement struct {
	best, played, loss float64 // the mover's expected scores, and best-played (>= 0)
	line               []engine.Move
	timeUp             bool
}

// judge scores ply i (played by mover) against the computer's choice.
func (a *annotator) judge(ctx context.Context, i, mover int) (judgement, error) {
	var j judgement
	before := a.g.Lines[i]
	r, err := a.p.Search(ctx, before)
	if err != nil {
		return j, err
	}
	j.timeUp = r.TimeUp
	if r.Reason == "only move" || a.g.Codec.Encode(before.State(), r.Move) == a.g.Codec.Encode(before.State(), a.g.Moves[i]) {
		return j, nil // the computer would have played it
	}
	after, err := before.Play(r.Move)
	if err != nil {
		return j, fmt.Errorf("analysis: the computer's move is illegal at ply %d: %w", i+1, err)
	}
	var next engine.Move
	if j.best, next, err = a.value(ctx, after, mover, &j.timeUp); err != nil {
		return j, err
	}
	if j.played, _, err = a.value(ctx, a.g.Lines[i+1], mover, &j.timeUp); err != nil {
		return j, err
	}
	j.loss = max(0, j.best-j.played)
	if j.loss < MistakeLoss {
		return j, nil
	}
	// The computer's line: its move, then its choices for every side.
	j.line = []engine.Move{r.Move}
	l := after
	for next != nil && len(j.line) < VariationPlies {
		j.line = append(j.line, next)
		if l, err = l.Play(next); err != nil {
			return j, fmt.Errorf("analysis: the computer's line is illegal at ply %d: %w", i+1, err)
		}
		next = nil
		if l.Outcome().Over || len(j.line) == VariationPlies {
			break
		}
		r, err := a.p.Search(ctx, l)
		if err != nil {
			return j, err
		}
		j.timeUp = j.timeUp || r.TimeUp
		next = r.Move
	}
	return j, nil
}

// maxForced bounds the forced plies (only moves) value plays through.
const maxForced = 8

// value is side's expected score at the end of l as the computer sees it,
// and the computer's move there (nil when the game is over).
func (a *annotator) value(ctx context.Context, l *engine.Line, side int, timeUp *bool) (float64, engine.Move, error) {
	var first engine.Move
	for range maxForced {
		if o := l.Outcome(); o.Over {
			return bot.Rewards(o)[side], first, nil
		}
		r, err := a.p.Search(ctx, l)
		if err != nil {
			return 0, nil, err
		}
		*timeUp = *timeUp || r.TimeUp
		if first == nil {
			first = r.Move
		}
		if r.Values != nil {
			return r.Values[side], first, nil
		}
		if l, err = l.Play(r.Move); err != nil { // an only move: play on
			return 0, nil, err
		}
	}
	return 0.5, first, nil
}
