package embedded_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/mail/embedded"
)

const childEnv = "PBEM_EMBEDDED_TEST_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		child(dir)
		return
	}
	os.Exit(m.Run())
}

// child runs the servers on dir, says where they listen and waits to be
// killed.
func child(dir string) {
	s, err := embedded.Start(&embedded.Options{Dir: dir, Logger: quiet()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println(s.SMTPAddr(), s.IMAPAddr())
	select {}
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func start(t *testing.T, dir string) *embedded.Servers {
	t.Helper()
	s, err := embedded.Start(&embedded.Options{Dir: dir, Logger: quiet()})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func message(from, to, subject string) []byte {
	return fmt.Appendf(nil, "From: <%s>\r\nTo: <%s>\r\nSubject: %s\r\nMessage-ID: <%s@test>\r\n\r\nbody of %s\r\n",
		from, to, subject, strings.ReplaceAll(subject, " ", "-"), subject)
}

// send submits a message over SMTP as user (logged in with password pass,
// no login when pass is ""), from envelope sender from.
func send(addr, user, pass, from, to string, raw []byte) error {
	c, err := smtp.Dial(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if pass != "" {
		if err := c.Auth(sasl.NewPlainClient("", user, pass)); err != nil {
			return err
		}
	}
	if err := c.SendMail(from, []string{to}, bytes.NewReader(raw)); err != nil {
		return err
	}
	return c.Quit()
}

type msg struct {
	UID   imap.UID
	Flags string
	Body  string
}

// mailbox lists a mailbox: UIDVALIDITY and every message with its flags.
func mailbox(t *testing.T, s *embedded.Servers, user, name string) (uint32, []msg) {
	t.Helper()
	c, err := imapclient.DialInsecure(s.IMAPAddr(), nil)
	require.NoError(t, err)
	defer c.Close()
	pw, _ := s.Password(user)
	require.NoError(t, c.Login(user, pw).Wait())
	sel, err := c.Select(name, &imap.SelectOptions{ReadOnly: true}).Wait()
	require.NoError(t, err)
	if sel.NumMessages == 0 {
		return sel.UIDValidity, nil
	}
	var all imap.SeqSet
	all.AddRange(1, 0)
	fetched, err := c.Fetch(all, &imap.FetchOptions{UID: true, Flags: true, BodySection: []*imap.FetchItemBodySection{{Peek: true}}}).Collect()
	require.NoError(t, err)
	var out []msg
	for _, m := range fetched {
		var flags []string
		for _, f := range m.Flags {
			flags = append(flags, string(f))
		}
		sort.Strings(flags)
		out = append(out, msg{m.UID, strings.Join(flags, " "), string(m.BodySection[0].Bytes)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].UID < out[j].UID })
	return sel.UIDValidity, out
}

// Everything a client did survives a restart on the same directory:
// deliveries, a new mailbox, flags, a move, a copy, an APPEND and an
// expunge, with the same UIDs and UIDVALIDITY.
func TestJournalRestoresMailboxes(t *testing.T) {
	dir := t.TempDir()
	s, err := embedded.Start(&embedded.Options{Dir: dir, Logger: quiet()})
	require.NoError(t, err)
	for i := range 5 {
		raw := message("alice@pbem.local", "referee@pbem.local", fmt.Sprintf("move %d", i))
		require.NoError(t, send(s.SMTPAddr(), "alice@pbem.local", "alice", "alice@pbem.local", "referee@pbem.local", raw))
	}
	require.NoError(t, s.Deliver("bob@pbem.local", []string{"referee@pbem.local"}, message("bob@pbem.local", "referee@pbem.local", "direct")))

	c, err := imapclient.DialInsecure(s.IMAPAddr(), nil)
	require.NoError(t, err)
	require.NoError(t, c.Login("referee@pbem.local", "referee").Wait())
	require.NoError(t, c.Create("Processed", nil).Wait())
	require.NoError(t, c.Create("Kept", nil).Wait())
	_, err = c.Select("INBOX", nil).Wait()
	require.NoError(t, err)
	var two, three imap.SeqSet
	two.AddNum(2)
	three.AddNum(3)
	require.NoError(t, c.Store(two, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagSeen, "$Played"}}, nil).Close())
	_, err = c.Copy(two, "Kept").Wait()
	require.NoError(t, err)
	_, err = c.Move(two, "Processed").Wait() // UID 2; UID 3 is now seq 2
	require.NoError(t, err)
	require.NoError(t, c.Store(three, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagDeleted}}, nil).Close())
	require.NoError(t, c.Expunge().Close()) // UID 4 goes
	var uid5 imap.UIDSet
	uid5.AddNum(5)
	require.NoError(t, c.Store(uid5, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagFlagged}}, nil).Close())
	raw := "From: <referee@pbem.local>\r\nSubject: draft\r\n\r\nkept\r\n"
	app := c.Append("Kept", int64(len(raw)), &imap.AppendOptions{Flags: []imap.Flag{imap.FlagDraft}})
	_, err = app.Write([]byte(raw))
	require.NoError(t, err)
	require.NoError(t, app.Close())
	_, err = app.Wait()
	require.NoError(t, err)
	c.Close()

	want := map[string][]msg{}
	validity := map[string]uint32{}
	for _, name := range []string{"INBOX", "Processed", "Kept"} {
		validity[name], want[name] = mailbox(t, s, "referee@pbem.local", name)
	}
	require.Len(t, want["INBOX"], 4, "6 delivered, one moved, one expunged")
	require.Len(t, want["Processed"], 1)
	require.Len(t, want["Kept"], 2)
	s.Close()

	s2 := start(t, dir)
	for _, name := range []string{"INBOX", "Processed", "Kept"} {
		v, got := mailbox(t, s2, "referee@pbem.local", name)
		assert.Equal(t, validity[name], v, name)
		assert.Equal(t, want[name], got, name)
	}
	// Delivery goes on after the restored UIDs.
	require.NoError(t, send(s2.SMTPAddr(), "alice@pbem.local", "alice", "alice@pbem.local", "referee@pbem.local", message("alice@pbem.local", "referee@pbem.local", "after")))
	_, got := mailbox(t, s2, "referee@pbem.local", "INBOX")
	require.Len(t, got, 5)
	assert.Equal(t, imap.UID(7), got[4].UID)
}

// A record torn by a crash while it was written (never acknowledged) is cut
// off; everything before it is kept and the journal goes on.
func TestJournalTornTail(t *testing.T) {
	dir := t.TempDir()
	s, err := embedded.Start(&embedded.Options{Dir: dir, Logger: quiet()})
	require.NoError(t, err)
	require.NoError(t, s.Deliver("alice@pbem.local", []string{"bob@pbem.local"}, message("alice@pbem.local", "bob@pbem.local", "one")))
	s.Close()
	path := filepath.Join(dir, "journal")
	whole, err := os.ReadFile(path)
	require.NoError(t, err)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.Write(whole[:len(whole)/2]) // half of a second record
	require.NoError(t, err)
	f.Close()

	s2 := start(t, dir)
	_, got := mailbox(t, s2, "bob@pbem.local", "INBOX")
	require.Len(t, got, 1)
	require.NoError(t, s2.Deliver("alice@pbem.local", []string{"bob@pbem.local"}, message("alice@pbem.local", "bob@pbem.local", "two")))
	s2.Close()
	s3 := start(t, dir)
	_, got = mailbox(t, s3, "bob@pbem.local", "INBOX")
	require.Len(t, got, 2)
	assert.Contains(t, got[1].Body, "body of two")
}

// The SMTP server answers 250 only once the message is durable, and an
// IMAP change is answered OK only once it is: the process is killed
// (SIGKILL) right after 20 deliveries one after another, and again while
// 16 SMTP sessions deliver at once and an IMAP session flags what has
// arrived. When the servers start again on the same directory, every
// message acknowledged with 250 is there once, nothing that was not sent,
// every flag acknowledged with OK is set, and the UIDs run without gaps.
func TestAcceptedMailSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := t.TempDir()
	spawn := func() (*exec.Cmd, string, string) {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+dir)
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		line, err := bufio.NewReader(out).ReadString('\n')
		require.NoError(t, err)
		smtpAddr, imapAddr, _ := strings.Cut(strings.TrimSpace(line), " ")
		return cmd, smtpAddr, imapAddr
	}
	kill := func(cmd *exec.Cmd) {
		require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		err := cmd.Wait()
		var exit *exec.ExitError
		require.True(t, errors.As(err, &exit) && exit.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL, "child not killed: %v", err)
	}

	cmd, addr, _ := spawn()
	const count = 20
	for i := range count {
		raw := message("alice@pbem.local", "referee@pbem.local", fmt.Sprintf("move %d", i))
		require.NoError(t, send(addr, "alice@pbem.local", "alice", "alice@pbem.local", "referee@pbem.local", raw))
	}
	kill(cmd)

	s := start(t, dir)
	_, got := mailbox(t, s, "referee@pbem.local", "INBOX")
	require.Len(t, got, count, "every message acknowledged with 250 is kept")
	for i, m := range got {
		assert.Contains(t, m.Body, fmt.Sprintf("body of move %d", i))
	}
	s.Close()

	// Concurrent deliveries and flag changes, killed in full flight.
	cmd, addr, imapAddr := spawn()
	const senders, enough = 16, 300
	var (
		mu      sync.Mutex
		acked   = map[string]bool{} // subjects answered 250
		flagged = map[imap.UID]bool{}
		wg      sync.WaitGroup
		stop    = make(chan struct{})
		full    = make(chan struct{})
		once    sync.Once
	)
	for g := range senders {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				subject := fmt.Sprintf("burst %d-%d", g, i)
				if send(addr, "alice@pbem.local", "alice", "alice@pbem.local", "referee@pbem.local", message("alice@pbem.local", "referee@pbem.local", subject)) != nil {
					return // killed
				}
				mu.Lock()
				acked[subject] = true
				if len(acked) >= enough {
					once.Do(func() { close(full) })
				}
				mu.Unlock()
			}
		})
	}
	wg.Go(func() {
		c, err := imapclient.DialInsecure(imapAddr, nil)
		if err != nil {
			return
		}
		defer c.Close()
		if c.Login("referee@pbem.local", "referee").Wait() != nil {
			return
		}
		if _, err := c.Select("INBOX", nil).Wait(); err != nil {
			return
		}
		for next := imap.UID(count + 1); ; {
			select {
			case <-stop:
				return
			default:
			}
			var set imap.UIDSet
			set.AddRange(next, 0)
			fetched, err := c.Fetch(set, &imap.FetchOptions{UID: true}).Collect()
			if err != nil {
				return
			}
			var uids imap.UIDSet
			for _, m := range fetched {
				if m.UID >= next {
					uids.AddNum(m.UID)
					next = m.UID + 1
				}
			}
			if len(uids) == 0 {
				if c.Noop().Wait() != nil {
					return
				}
				continue
			}
			if c.Store(uids, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagFlagged}}, nil).Close() != nil {
				return
			}
			mu.Lock()
			for _, r := range uids {
				for u := r.Start; u <= r.Stop; u++ {
					flagged[u] = true
				}
			}
			mu.Unlock()
		}
	})
	select {
	case <-full:
	case <-time.After(time.Minute):
		t.Fatal("the concurrent deliveries did not get going")
	}
	kill(cmd)
	close(stop)
	wg.Wait()

	s = start(t, dir)
	_, got = mailbox(t, s, "referee@pbem.local", "INBOX")
	mu.Lock()
	defer mu.Unlock()
	t.Logf("killed with %d deliveries acknowledged, %d flags acknowledged; %d messages kept", len(acked), len(flagged), len(got))
	seen := map[string]bool{}
	for i, m := range got {
		require.Equal(t, imap.UID(i+1), m.UID, "UIDs without gaps")
		if i < count {
			continue
		}
		subject := m.Body[strings.Index(m.Body, "body of ")+len("body of "):]
		subject = strings.TrimSpace(subject)
		require.True(t, strings.HasPrefix(subject, "burst "), "a message that was not sent: %q", subject)
		require.False(t, seen[subject], "kept twice: %s", subject)
		seen[subject] = true
		if flagged[m.UID] {
			assert.Contains(t, m.Flags, string(imap.FlagFlagged), "UID %d was flagged with OK", m.UID)
		}
	}
	for subject := range acked {
		assert.True(t, seen[subject], "acknowledged with 250 and lost: %s", subject)
	}
	for uid := range flagged {
		assert.LessOrEqual(t, int(uid), len(got), "flagged with OK and lost: UID %d", uid)
	}
}

// The SMTP server takes mail only from a logged-in account sending as
// itself: no login is 530, a wrong password 535, another envelope sender
// 553 and another From 550.
func TestSMTPRequiresLoginAndOwnAddress(t *testing.T) {
	s := start(t, "")
	ref := "referee@pbem.local"
	tests := []struct {
		name, user, pass, from, header string
		code                           int // 0: accepted
	}{
		{"no login", "", "", "alice@pbem.local", "alice@pbem.local", 530},
		{"wrong password", "alice@pbem.local", "bob", "alice@pbem.local", "alice@pbem.local", 535},
		{"unknown account", "mallory@pbem.local", "x", "mallory@pbem.local", "mallory@pbem.local", 535},
		{"other envelope sender", "alice@pbem.local", "alice", "bob@pbem.local", "alice@pbem.local", 553},
		{"outside envelope sender", "alice@pbem.local", "alice", "alice@example.org", "alice@pbem.local", 553},
		{"other From", "alice@pbem.local", "alice", "alice@pbem.local", "bob@pbem.local", 550},
		{"no From", "alice@pbem.local", "alice", "alice@pbem.local", "", 550},
		{"own address", "alice@pbem.local", "alice", "alice@pbem.local", "alice@pbem.local", 0},
		{"own plus-address", "alice@pbem.local", "alice", "alice+games@pbem.local", "Alice <ALICE@pbem.local>", 0},
	}
	delivered := 0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := []byte("To: " + ref + "\r\nSubject: " + tt.name + "\r\n\r\nhelp\r\n")
			if tt.header != "" {
				raw = append([]byte("From: "+tt.header+"\r\n"), raw...)
			}
			err := send(s.SMTPAddr(), tt.user, tt.pass, tt.from, ref, raw)
			if tt.code == 0 {
				require.NoError(t, err)
				delivered++
				return
			}
			var se *smtp.SMTPError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.code, se.Code, se.Message)
		})
	}
	st, err := s.Status("referee", "INBOX")
	require.NoError(t, err)
	assert.Equal(t, uint32(delivered), *st.NumMessages, "only the accepted mail arrived")
}

// TestFetchWholeMessageAsStored: BODY[] gives a message's bytes exactly as
// they were added (folded and oddly spaced fields, a bare LF, even a line
// that is no field, of which a parse gave nothing), BODY[]<offset.size> a
// slice of them, and the other sections are still cut from the parsed
// message.
func TestFetchWholeMessageAsStored(t *testing.T) {
	s := start(t, t.TempDir())
	c, err := imapclient.DialInsecure(s.IMAPAddr(), nil)
	require.NoError(t, err)
	defer c.Close()
	pw, _ := s.Password("referee")
	require.NoError(t, c.Login("referee@pbem.local", pw).Wait())
	odd := "Subject:   folded\r\n  over two lines\r\nX-Odd:\tvalue \nnot a field\r\nTo: <a@b>\r\n\r\nbody\r\n"
	plain := "Subject: plain\r\nTo:  <a@b>\r\n\r\nbody\r\n"
	for _, raw := range []string{odd, plain} {
		cmd := c.Append("INBOX", int64(len(raw)), nil)
		_, err = cmd.Write([]byte(raw))
		require.NoError(t, err)
		require.NoError(t, cmd.Close())
		_, err = cmd.Wait()
		require.NoError(t, err)
	}
	_, err = c.Select("INBOX", nil).Wait()
	require.NoError(t, err)
	var all imap.SeqSet
	all.AddRange(1, 0)
	whole := &imap.FetchItemBodySection{Peek: true}
	part := &imap.FetchItemBodySection{Peek: true, Partial: &imap.SectionPartial{Offset: 5, Size: 10}}
	past := &imap.FetchItemBodySection{Peek: true, Partial: &imap.SectionPartial{Offset: 1000, Size: 10}}
	head := &imap.FetchItemBodySection{Peek: true, Specifier: imap.PartSpecifierHeader, HeaderFields: []string{"To"}}
	msgs, err := c.Fetch(all, &imap.FetchOptions{BodySection: []*imap.FetchItemBodySection{whole, part, past, head}}).Collect()
	require.NoError(t, err)
	require.Len(t, msgs, 2)
	for i, raw := range []string{odd, plain} {
		require.Equal(t, raw, string(msgs[i].FindBodySection(whole)))
		require.Equal(t, raw[5:15], string(msgs[i].FindBodySection(part)))
		require.Empty(t, msgs[i].FindBodySection(past))
	}
	require.Equal(t, "To:  <a@b>\r\n\r\n", string(msgs[1].FindBodySection(head)))
}
