package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/archive"
	"pbem/engine"
	"pbem/mail"
	"pbem/referee"
)

// moveNumber matches the move numbers of a record's movetext (1. 0...).
var moveNumber = regexp.MustCompile(`^\d+\.+$`)

// plies are the plies of a stored record, as written.
func plies(record string) []string {
	_, text, _ := strings.Cut(record, "\n\n")
	text = regexp.MustCompile(`\{[^}]*\}`).ReplaceAllString(text, " ")
	var out []string
	for _, w := range strings.Fields(text) {
		if !moveNumber.MatchString(w) && w != "*" {
			out = append(out, w)
		}
	}
	return out
}

// TestBackupDuringLoad takes pbem backup while plies arrive by SMTP and
// are answered (the load of make bench-serve, smaller): the restored store
// passes PRAGMA integrity_check and holds every ply whose reply the SMTP
// server had accepted before the backup began.
func TestBackupDuringLoad(t *testing.T) {
	const games = 6
	cfg := testConfig(t)
	cfg.Referee.RateLimitTotal = 1_000_000
	var names []string
	for i := range 2 * games {
		names = append(names, fmt.Sprintf("p%d", i))
	}
	var mu sync.Mutex
	sent := map[int64]int{} // replies the SMTP server accepted, by game
	s := &server{cfg: cfg, out: io.Discard, embedded: true, players: names,
		onSent: func(_ string, g int64) { mu.Lock(); sent[g]++; mu.Unlock() }}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- s.run(ctx, func(*server) { close(ready) }) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatal(err)
	}
	defer func() { cancel(); <-done }()
	domain := s.mails.Domain()
	addr := func(i int) string { return names[i] + "@" + domain }
	submit := func(from, to, body string) error {
		o := &mail.Outgoing{From: mail.Address{Addr: from}, To: []mail.Address{{Addr: to}}, Date: time.Now(),
			MessageID: mail.NewMessageID(domain), Text: body}
		c, err := smtp.Dial(s.mails.SMTPAddr())
		if err != nil {
			return err
		}
		defer c.Close()
		pw, _ := s.mails.Password(from)
		if err := c.Auth(sasl.NewPlainClient("", from, pw)); err != nil {
			return err
		}
		return c.SendMail(from, []string{to}, bytes.NewReader(mail.Compose(o)))
	}
	// The games are set up through the referee (the load is the plies).
	for g := range games {
		h := func(from, to, subject, body string) {
			t.Helper()
			require.NoError(t, s.ref.Handle(ctx, referee.Request{From: referee.Address{Addr: from}, To: to, Subject: subject, Body: body,
				MessageID: fmt.Sprintf("setup-%d-%s-%s@test", g, from, body)}))
		}
		id := int64(g + 1)
		h(addr(2*g), s.mails.RefereeAddress(), fmt.Sprintf("new castles with %s first=%s", addr(2*g+1), addr(2*g)), "")
		gm, err := s.store.Game(ctx, id)
		require.NoError(t, err)
		for i, st := range gm.Seats {
			h(st.Player.Addr, fmt.Sprintf("referee+%d.%s@%s", id, gm.Seats[i].Token, domain), "", "accept")
		}
	}
	s.sender.Wake() // the setup's mails, queued beside the poller
	pendingOf := func(g int64) int {
		var n int
		require.NoError(t, s.store.DB().QueryRow(`SELECT COUNT(*) FROM outbox WHERE game_id = ? AND status = 'pending'`, g).Scan(&n))
		return n
	}
	codec, err := referee.Lookup("castles")
	require.NoError(t, err)

	// One driver a game: a ply, then its replies, then the next ply.
	// confirmed[g] are the plies whose replies the SMTP server accepted.
	confirmed := map[int64][]string{}
	submitted := map[int64][]string{} // every ply mailed, in order
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errc := make(chan error, games)
	for g := range games {
		id := int64(g + 1)
		wg.Go(func() {
			gm, err := s.store.Game(ctx, id)
			if err != nil {
				errc <- err
				return
			}
			seatAddr := []string{gm.Seats[0].Player.Addr, gm.Seats[1].Player.Addr}
			plus := []string{fmt.Sprintf("referee+%d.%s@%s", id, gm.Seats[0].Token, domain), fmt.Sprintf("referee+%d.%s@%s", id, gm.Seats[1].Token, domain)}
			st, _ := codec.Rules().Start(engine.Options{})
			line := engine.NewLine(st)
			r := rand.New(rand.NewPCG(uint64(id), 7))
			for k := 0; k < 200 && !line.Outcome().Over; k++ {
				// Every reply of the plies before is sent.
				for pendingOf(id) > 0 {
					select {
					case <-stop:
						return
					case <-time.After(5 * time.Millisecond):
					}
				}
				mu.Lock()
				base := sent[id]
				mu.Unlock()
				m := randomMove(line.State(), r)
				text := codec.Encode(line.State(), m)
				mover := line.State().ToMove()
				mu.Lock()
				submitted[id] = append(submitted[id], text)
				mu.Unlock()
				if err := submit(seatAddr[mover], plus[mover], text); err != nil {
					errc <- err
					return
				}
				if line, err = line.Play(m); err != nil {
					errc <- err
					return
				}
				for {
					mu.Lock()
					answered := sent[id] > base
					mu.Unlock()
					if answered {
						break
					}
					select {
					case <-stop:
						return
					case <-time.After(5 * time.Millisecond):
					}
				}
				mu.Lock()
				confirmed[id] = append(confirmed[id], text)
				mu.Unlock()
			}
		})
	}
	atLeast := func(n int) bool {
		mu.Lock()
		defer mu.Unlock()
		for g := range games {
			if len(confirmed[int64(g+1)]) < n {
				return false
			}
		}
		return true
	}
	waitUntil := func(what string, ok func() bool) {
		for deadline := time.Now().Add(2 * time.Minute); !ok(); time.Sleep(10 * time.Millisecond) {
			select {
			case err := <-errc:
				t.Fatal(err)
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	waitUntil("3 plies a game", func() bool { return atLeast(3) })
	mu.Lock()
	before := map[int64][]string{}
	for g, ps := range confirmed {
		before[g] = slices.Clone(ps)
	}
	mu.Unlock()
	file := filepath.Join(t.TempDir(), "pbem-backup.db")
	_, err = backup(ctx, cfg.DataDir, file)
	require.NoError(t, err)
	waitUntil("6 plies a game", func() bool { return atLeast(6) }) // the load went on
	close(stop)
	wg.Wait()

	restored := t.TempDir()
	_, err = restore(context.Background(), restored, file, time.Now())
	require.NoError(t, err)
	b, err := archive.Open(context.Background(), restored, nil)
	require.NoError(t, err)
	defer b.Close()
	problems, err := b.IntegrityCheck(context.Background())
	require.NoError(t, err)
	assert.Empty(t, problems)
	for g, want := range before {
		gm, err := b.Game(context.Background(), g)
		require.NoError(t, err)
		got := plies(gm.Record)
		require.GreaterOrEqual(t, len(got), len(want), "game %d: the backup lost plies answered before it began", g)
		assert.Equal(t, want, got[:len(want)], "game %d", g)
	}
	_, err = os.Stat(filepath.Join(restored, "mail", "journal"))
	assert.NoError(t, err, "the mail journal is restored")
	b.Close()

	// pbem serve on the restored directory reads what the copied inbox
	// holds unprocessed: every game then holds a prefix of the plies
	// mailed, at least those answered before the backup, none twice.
	cfg2 := testConfig(t)
	cfg2.DataDir = restored
	s2 := &server{cfg: cfg2, out: io.Discard, embedded: true, players: names}
	ctx2, cancel2 := context.WithCancel(context.Background())
	ready2 := make(chan struct{})
	done2 := make(chan error, 1)
	go func() { done2 <- s2.run(ctx2, func(*server) { close(ready2) }) }()
	select {
	case <-ready2:
	case err := <-done2:
		t.Fatal(err)
	}
	defer func() { cancel2(); <-done2 }()
	// (A message the copy holds \Seen but not yet moved was processed.)
	waitUntil("the restored inbox read", func() bool {
		st, err := s2.mails.Status("referee", "INBOX")
		return err == nil && *st.NumUnseen == 0
	})
	for g, want := range before {
		gm, err := s2.store.Game(context.Background(), g)
		require.NoError(t, err)
		got := plies(gm.Record)
		require.GreaterOrEqual(t, len(got), len(want), "game %d", g)
		mu.Lock()
		all := submitted[g]
		mu.Unlock()
		require.LessOrEqual(t, len(got), len(all), "game %d holds more plies than were mailed", g)
		assert.Equal(t, all[:len(got)], got, "game %d: the plies mailed, in order, once", g)
	}
}

// TestRestoreChecksTheBackup: a file that is no sound store, or a store of
// a newer pbem, is not restored, and the store in place stays as it was.
func TestRestoreChecksTheBackup(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := archive.Open(ctx, dir, nil)
	require.NoError(t, err)
	require.NoError(t, s.Commit(ctx, &archive.Change{MessageID: "kept@test"}))
	require.NoError(t, s.Close())

	junk := filepath.Join(t.TempDir(), "junk.db")
	require.NoError(t, os.WriteFile(junk, []byte("not a database"), 0o600))
	newer := filepath.Join(t.TempDir(), "newer.db")
	n, err := archive.Open(ctx, filepath.Dir(newer), nil)
	require.NoError(t, err)
	_, err = n.DB().Exec(`INSERT INTO schema_migrations (version, name, applied) VALUES (?, 'from the future', 0)`, archive.SchemaVersion()+1)
	require.NoError(t, err)
	require.NoError(t, n.Backup(ctx, newer))
	require.NoError(t, n.Close())

	for file, want := range map[string]string{junk: "not a database", newer: "newer than this program's"} {
		code, _, errs := run(t, "", "restore", file, "--data", dir)
		assert.Equal(t, 1, code, file)
		assert.Contains(t, errs, want, file)
	}
	s, err = archive.Open(ctx, dir, nil)
	require.NoError(t, err)
	defer s.Close()
	seen, err := s.Seen(ctx, "kept@test")
	require.NoError(t, err)
	assert.True(t, seen, "the store in place is untouched")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.NotContains(t, e.Name(), "replaced", "nothing was set aside")
	}
}

// TestRestoreRefusesCraftedSchema (issue 42): a backup with a trigger
// added (one that marks every reply sent, so that none goes) was restored,
// the trigger with it. restore compares the schema with that of the
// backup's version and refuses, naming what differs.
func TestRestoreRefusesCraftedSchema(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := archive.Open(ctx, dir, nil)
	require.NoError(t, err)
	require.NoError(t, s.Commit(ctx, &archive.Change{MessageID: "kept@test"}))
	require.NoError(t, s.Close())

	crafted := filepath.Join(t.TempDir(), "crafted.db")
	c, err := archive.Open(ctx, filepath.Dir(crafted), nil)
	require.NoError(t, err)
	_, err = c.DB().Exec(`CREATE TRIGGER quiet AFTER INSERT ON outbox BEGIN UPDATE outbox SET status = 'sent' WHERE id = NEW.id; END`)
	require.NoError(t, err)
	require.NoError(t, c.Backup(ctx, crafted))
	require.NoError(t, c.Close())

	code, _, errs := run(t, "", "restore", crafted, "--data", dir)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "unexpected trigger quiet on outbox")
	s, err = archive.Open(ctx, dir, nil)
	require.NoError(t, err)
	defer s.Close()
	var n int
	require.NoError(t, s.DB().QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger' AND name = 'quiet'`).Scan(&n))
	assert.Zero(t, n, "the crafted trigger is in the store in place")
}
