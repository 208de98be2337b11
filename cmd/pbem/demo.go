package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"pbem/engine"
	"pbem/mail"
	"pbem/notation"
	"pbem/referee"
)

func runDemo(c *cli, args []string) int {
	fs := c.flags("demo")
	games := fs.String("games", "", "comma-separated game ids (default: every game)")
	plies := fs.Int("plies", 4, "plies to play in each game before the player to move resigns")
	seed := fs.Uint64("seed", 1, "random seed for the demo players' moves")
	mailDir := fs.String("mail", "", "directory to write every mail the players get into, as .eml files to open in a mail client (default: a new temporary directory)")
	pos, code, done := c.parse(fs, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(c.stderr, "pbem demo: unexpected argument %q\n", pos[0])
		return 2
	}
	var codecs []notation.Codec
	if *games == "" {
		codecs = referee.Games()
	} else {
		for id := range strings.SplitSeq(*games, ",") {
			g, err := referee.Lookup(strings.TrimSpace(id))
			if err != nil {
				fmt.Fprintf(c.stderr, "pbem demo: %v\n", err)
				return 2
			}
			codecs = append(codecs, g)
		}
	}
	dir, err := os.MkdirTemp("", "pbem-demo-")
	if err != nil {
		fmt.Fprintf(c.stderr, "pbem demo: %v\n", err)
		return 2
	}
	defer os.RemoveAll(dir)
	cfg := &Config{DataDir: dir}
	cfg.defaults()
	cfg.HTTP.Addr = "127.0.0.1:0"
	cfg.Log.Level = "warn"
	if *mailDir == "" {
		if *mailDir, err = os.MkdirTemp("", "pbem-demo-mail-"); err != nil {
			fmt.Fprintf(c.stderr, "pbem demo: %v\n", err)
			return 2
		}
	} else if err := os.MkdirAll(*mailDir, 0o755); err != nil {
		fmt.Fprintf(c.stderr, "pbem demo: %v\n", err)
		return 2
	}
	if err := demoTo(context.Background(), cfg, c.stdout, codecs, *plies, *seed, *mailDir); err != nil {
		fmt.Fprintf(c.stderr, "pbem demo: %v\n", err)
		return 1
	}
	return 0
}

// demo starts pbem serve on its embedded mail servers and plays a short
// game of each kind through them: every command and ply is mailed by SMTP
// as a player would, and every reply read back by IMAP; w gets the
// transcript.
func demo(ctx context.Context, cfg *Config, w io.Writer, codecs []notation.Codec, plies int, seed uint64) error {
	return demoTo(ctx, cfg, w, codecs, plies, seed, "")
}

// demoTo is demo that also writes every mail the players get, as received,
// into mailDir (unless it is ""): GAME-NN-ADDRESS.eml, to open in a mail
// client and see the HTML part, the board as a picture.
func demoTo(ctx context.Context, cfg *Config, w io.Writer, codecs []notation.Codec, plies int, seed uint64, mailDir string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &server{cfg: cfg, out: io.Discard, embedded: true}
	ready := make(chan struct{})
	errc := make(chan error, 1)
	go func() { errc <- s.run(ctx, func(*server) { close(ready) }) }()
	select {
	case <-ready:
	case err := <-errc:
		return err
	}
	r := rand.New(rand.NewPCG(seed, 0))
	for _, codec := range codecs {
		n := 2
		if codec.Rules().ID() == "rpp" {
			n = 3
		}
		var ps []*player
		for _, name := range []string{"alice", "bob", "carol"}[:n] {
			pass, _ := s.mails.Password(name)
			ps = append(ps, &player{addr: name + "@" + s.mails.Domain(), pass: pass, imapAddr: s.mails.IMAPAddr(), smtpAddr: s.mails.SMTPAddr()})
		}
		if err := playByMail(ctx, w, s.mails.RefereeAddress(), ps, codec, plies, r); err != nil {
			return fmt.Errorf("%s: %w", codec.Rules().ID(), err)
		}
		if err := writeMails(mailDir, codec.Rules().ID(), ps); err != nil {
			return err
		}
	}
	if mailDir != "" {
		fmt.Fprintf(w, "Every mail the players got is in %s, as .eml files: open one in a mail client to see its HTML part, the board as a picture.\n", mailDir)
	}
	cancel()
	return <-errc
}

// playByMail plays one game by mail: ps[0] creates it, confirms, and so
// invites the others, who accept; then each player in turn mails a random legal ply
// until the game ends or plies have been played, when the player to move
// resigns. Every mail is sent by SMTP and every reply read back by IMAP.
func playByMail(ctx context.Context, w io.Writer, ref string, ps []*player, codec notation.Codec, plies int, r *rand.Rand) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second+time.Duration(plies)*time.Second)
	defer cancel()
	id := codec.Rules().ID()
	n := len(ps)
	var names []string
	for _, p := range ps {
		if err := p.skip(); err != nil {
			return err
		}
		names = append(names, p.addr)
	}
	fmt.Fprintf(w, "=== %s: %s\n\n", id, strings.Join(names, ", "))
	say := func(p *player, text string) {
		fmt.Fprintf(w, "%s -> %s: %s\n", p.addr, ref, text)
	}
	// The creator moves first (ziggurat and rpp would otherwise draw).
	cmd := fmt.Sprintf("new %s with %s first=%s", id, strings.Join(names[1:], " "), names[0])
	if err := ps[0].send(ref, cmd, "", nil); err != nil {
		return err
	}
	say(ps[0], cmd)
	// The creator confirms with the token mailed to it; then the
	// invitations go out.
	m, err := ps[0].wait(ctx, "invitation")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s <- %s\n", ps[0].addr, m.Subject)
	if err := ps[0].send(ref, "", "accept", m); err != nil {
		return err
	}
	say(ps[0], "accept")
	for _, p := range ps[1:] {
		m, err := p.wait(ctx, "invitation")
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s <- %s\n", p.addr, m.Subject)
		if err := p.send(ref, "", "accept", m); err != nil {
			return err
		}
		say(p, "accept")
	}
	last := make(map[*player]*mail.Inbound) // each player's latest mail from the referee
	for _, p := range ps {
		m, err := p.wait(ctx, "to move")
		if err != nil {
			return err
		}
		last[p] = m
	}
	start, err := codec.Rules().Start(engine.Options{Players: n})
	if err != nil {
		return err
	}
	line := engine.NewLine(start)
	show := func(p *player) {
		fmt.Fprintf(w, "\n%s <- %s\n%s\n", p.addr, last[p].Subject, indent(last[p].Text))
	}
	show(ps[line.State().ToMove()])
	for ply := 0; !line.Outcome().Over; ply++ {
		mover := ps[line.State().ToMove()]
		text := "resign"
		var m engine.Move
		if ply < plies {
			m = randomMove(line.State(), r)
			text = codec.Encode(line.State(), m)
		} else if l, ok := line.State().(engine.Leaver); ok && n > 2 && l.CanLeave(line.State().ToMove()) {
			// With three or more seats the resigning seat leaves and the
			// others play on: they resign in turn until one is left.
			m = engine.Leave{Seat: line.State().ToMove(), Reason: engine.LeaveResign}
		}
		if err := mover.send(ref, "", text, last[mover]); err != nil {
			return err
		}
		say(mover, text)
		if m != nil {
			if line, err = line.Play(m); err != nil {
				return err
			}
		}
		for _, p := range ps {
			got, err := p.wait(ctx, "")
			if err != nil {
				return err
			}
			last[p] = got
		}
		next := ps[line.State().ToMove()]
		if text == "resign" || line.Outcome().Over {
			next = mover
		}
		show(next)
		if text == "resign" && m == nil {
			break // the game ended with the resignation
		}
	}
	fmt.Fprintln(w)
	return nil
}

// writeMails writes the mails ps got since the game began (their last
// skip), as received, into dir (nothing when dir is ""):
// GAME-NN-ADDRESS.eml. The mailboxes are shared by every game of the demo,
// so what came before the game belongs to the games before it.
func writeMails(dir, game string, ps []*player) error {
	if dir == "" {
		return nil
	}
	for _, p := range ps {
		if _, err := p.fetch(); err != nil {
			return err
		}
		for i, m := range p.inbox[p.since:] {
			name := fmt.Sprintf("%s-%02d-%s.eml", game, i+1, strings.ReplaceAll(p.addr, "@", "_at_"))
			if err := os.WriteFile(filepath.Join(dir, name), m.Raw, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

func indent(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "    " + l
	}
	return strings.Join(lines, "\n")
}
