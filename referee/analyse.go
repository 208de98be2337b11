package referee

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"pbem/archive"
	"pbem/notation"
	"pbem/referee/analysis"
)

// Bounds of the analysis queue.
const (
	// MaxQueuedAnalyses is the most analyses waiting at once, from
	// everyone.
	MaxQueuedAnalyses = 100
	// MaxQueuedAnalysesEach is the most analyses one address may have
	// waiting.
	MaxQueuedAnalysesEach = 3
	// MaxAnalysisLevel is the strongest level analyse takes by mail: the
	// levels whose annotation is the same every time.
	MaxAnalysisLevel = 4
	// AnalysisPlyTime bounds the searches of one ply of an analysis by
	// mail.
	AnalysisPlyTime = 10 * time.Second
)

// analyseCmd: analyse GAMEID [level=N] queues the computer's annotation of
// a finished game, for one of its players or, for a public game, anyone.
func (s *session) analyseCmd(c *cmd) error {
	form := fmt.Sprintf("analyse GAMEID [level=N] [side=SIDE], N from 1 to %d (default 3), for a finished game", MaxAnalysisLevel)
	st := s.store
	f := strings.Fields(c.rest)
	level := 3
	var rest []string
	side := ""
	for _, w := range f {
		if v, ok := strings.CutPrefix(strings.ToLower(w), "side="); ok {
			side = w[len("side="):]
			if v == "" {
				return mistake(nil, form, "side= needs a side, as the game names it")
			}
			continue
		}
		if v, ok := strings.CutPrefix(strings.ToLower(w), "level="); ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > MaxAnalysisLevel {
				return mistake(nil, form, "%q is not a level from 1 to %d", v, MaxAnalysisLevel)
			}
			level = n
			continue
		}
		rest = append(rest, w)
	}
	g, err := s.gameArg(&cmd{verb: c.verb, rest: strings.Join(rest, " ")}, form)
	if err != nil {
		return err
	}
	if g.seatOf(s.from.Addr) >= 0 {
		if _, err := s.authorize(g); err != nil {
			return err
		}
	} else if g.Options.Private {
		return noGame(g.ID)
	}
	if g.Status != archive.Over {
		return mistake(g, form, "game #%d is not over: the computer analyses finished games only", g.ID)
	}
	seat := -1
	if side != "" {
		if seat = g.sideArg(side); seat < 0 {
			return mistake(nil, form, "%q is not a side of game #%d (its sides: %s)", side, g.ID, strings.Join(g.sides, ", "))
		}
	}
	queued, err := st.QueuedAnalyses(s.ctx, MaxQueuedAnalyses)
	if err != nil {
		return err
	}
	mine := 0
	for _, a := range queued {
		if a.Addr == s.from.Addr {
			mine++
		}
	}
	for _, a := range s.analyses {
		if a.Addr == s.from.Addr {
			mine++
		}
	}
	switch {
	case mine >= MaxQueuedAnalysesEach:
		return mistake(nil, fmt.Sprintf("at most %d analyses of yours waiting at once", MaxQueuedAnalysesEach),
			"you have %d analyses waiting already; ask again when one has come", mine)
	case len(queued)+len(s.analyses) >= MaxQueuedAnalyses:
		return mistake(nil, "an analysis later", "the computer has %d analyses waiting, the most it queues; ask again later", len(queued))
	}
	a := &archive.Analysis{GameID: g.ID, Addr: s.from.Addr, Name: s.from.Name, Level: level, Side: seat, Requested: s.now, Status: archive.AnalysisQueued}
	s.analyses = append(s.analyses, a)
	s.mine.label = fmt.Sprintf("analysis of game #%d", g.ID)
	s.mine.add("The computer (level %d) will analyse game #%d, behind every move and the analyses asked for before it (%d waiting); the annotated record comes in a mail of its own.",
		level, g.ID, len(queued))
	return nil
}

// RunAnalysis does the oldest queued analysis, if any, and mails its
// annotated record to whoever asked: it reports whether there was one.
// Before each ply it waits while the referee handles requests, bot moves
// or the clock, so that analyses never delay a move by more than one
// ply's search (at most AnalysisPlyTime, far less at the levels taken).
// The result is stored and mailed in one commit, which only the first of
// several workers makes.
func (r *Referee) RunAnalysis(ctx context.Context) (bool, error) {
	st := r.store
	q, err := st.QueuedAnalyses(ctx, 1)
	if err != nil || len(q) == 0 {
		return false, err
	}
	a := q[0]
	key := fmt.Sprintf("analysis:%d", a.ID)
	s := r.newSession(ctx, nil, key)
	to := Address{Name: a.Name, Addr: a.Addr}
	s.mine = &draft{to: to, seat: -1, kind: "analysis", label: fmt.Sprintf("analysis of game #%d", a.GameID)}
	text, err := r.annotate(ctx, s, a)
	switch {
	case err == nil:
		a.Status, a.Text = archive.AnalysisDone, text
		s.mine.add("The computer's analysis of game #%d at level %d: plies marked ? or ?? lose %.2f or %.2f or more of the expected score against the computer's choice, given as a variation.",
			a.GameID, a.Level, analysis.MistakeLoss, analysis.BlunderLoss)
		s.mine.addPre(strings.TrimRight(text, "\n"))
	case ctx.Err() != nil:
		return false, ctx.Err() // stopped: it stays queued
	default:
		a.Status, a.Text = archive.AnalysisFailed, err.Error()
		r.log.Error("analysis failed", "game", a.GameID, "analysis", a.ID, "err", err)
		s.mine.add("The computer could not analyse game #%d (an internal error); nothing else was changed.", a.GameID)
	}
	ch := &archive.Change{At: r.now(nil), Analyses: []*archive.Analysis{a}, Outbox: []*archive.Outgoing{s.compose(s.mine)}}
	if err := r.store.Commit(ctx, ch); err != nil {
		if errors.Is(err, archive.ErrConflict) {
			return true, nil // another worker finished it
		}
		return false, fmt.Errorf("referee: analysis %d: %w", a.ID, err)
	}
	r.stats.queued.Add(1)
	return true, nil
}

// annotate is the annotated record of a's game, names only (never
// addresses) for whoever does not play it.
func (r *Referee) annotate(ctx context.Context, s *session, a *archive.Analysis) (string, error) {
	g, err := s.game(a.GameID)
	if err != nil {
		return "", err
	}
	rec := g.Record
	if g.seatOf(a.Addr) < 0 {
		rec = g.redact(rec)
	}
	var cg *notation.Game
	var problems []*notation.Problem
	notation.CheckFile(fmt.Sprintf("game %d", g.ID), []byte(rec), r.opts.Lookup, func(ch *notation.Checked) {
		if cg == nil {
			cg, problems = ch.Game, ch.Problems
		}
	})
	if cg == nil || len(problems) > 0 {
		return "", fmt.Errorf("referee: the record of game #%d does not check: %v", g.ID, problems)
	}
	o := analysis.Options{Level: a.Level, PlyTime: AnalysisPlyTime, Yield: r.idle}
	if a.Side >= 0 {
		o.Side = &a.Side
	}
	text, _, err := analysis.Annotate(ctx, cg, r.opts.Lookup, o)
	return text, err
}

// idle waits until the referee handles no request, bot move or clock
// event.
func (r *Referee) idle(ctx context.Context) error {
	for r.busy.Load() > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	return nil
}

// publishCmd: publish GAMEID puts the sender's latest analysis of a
// finished public game of theirs on the game's web page, with the
// players' names, never their addresses.
func (s *session) publishCmd(c *cmd) error {
	const form = "publish GAMEID, after analyse GAMEID has mailed you the analysis of your finished game"
	st := s.store
	g, err := s.gameArg(c, form)
	if err != nil {
		return err
	}
	if _, err := s.authorize(g); err != nil {
		return err
	}
	switch {
	case g.Status != archive.Over:
		return mistake(g, form, "game #%d is not over: an analysis is published once the game has ended", g.ID)
	case g.Options.Private:
		return mistake(nil, "publish for a public game", "game #%d is private: it has no web page", g.ID)
	}
	mine, err := st.AnalysesOf(s.ctx, s.from.Addr)
	if err != nil {
		return err
	}
	var last *archive.Analysis
	for _, a := range mine {
		if a.GameID == g.ID && a.Status == archive.AnalysisDone {
			last = a
		}
	}
	if last == nil {
		return mistake(nil, form, "you have no finished analysis of game #%d to publish; ask for one with analyse %d", g.ID, g.ID)
	}
	pub := *last
	pub.Published, pub.Text = true, g.redact(last.Text)
	s.analyses = append(s.analyses, &pub)
	s.mine.label = fmt.Sprintf("analysis of game #%d published", g.ID)
	if u := s.r.gameURL(g); u != "" {
		s.mine.add("The computer's analysis of game #%d (level %d) is on the game's web page: %s", g.ID, pub.Level, u)
	} else {
		s.mine.add("The computer's analysis of game #%d (level %d) is published: the game's web page shows it.", g.ID, pub.Level)
	}
	return nil
}
