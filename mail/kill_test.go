package mail_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/mail"
)

const childEnv = "PBEM_MAIL_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		crashChild()
		return
	}
	os.Exit(m.Run())
}

// fileStore is a durable store of applied message keys and queued replies:
// one line per applied message, "key<TAB>reply-message-id", fsynced before
// the handler returns. It stands for the application's database.
type fileStore struct {
	mu   sync.Mutex
	path string
}

func (fs *fileStore) lines() []string {
	b, err := os.ReadFile(fs.path)
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// apply records in and its reply in one durable append, unless in's key is
// already recorded.
func (fs *fileStore) apply(in *mail.Inbound) (applied bool, err error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, l := range fs.lines() {
		if key, _, _ := strings.Cut(l, "\t"); key == in.Key() {
			return false, nil
		}
	}
	f, err := os.OpenFile(fs.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "%s\t%s\n", in.Key(), mail.NewMessageID("pbem.local")); err != nil {
		return false, err
	}
	return true, f.Sync()
}

// crashChild is the child process of TestKilledBetweenCommitAndSeen: it
// polls the referee's mailbox, commits the first message to the file store
// and is killed (SIGKILL) before it can mark the message \Seen.
func crashChild() {
	fs := &fileStore{path: os.Getenv("STORE")}
	p, err := mail.NewPoller(&mail.PollerOptions{
		Addr:     os.Getenv("IMAP_ADDR"),
		Security: mail.SecurityPlain,
		Username: "referee@pbem.local",
		Password: os.Getenv("IMAP_PASSWORD"),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p.Run(ctx, mail.HandlerFunc(func(ctx context.Context, in *mail.Inbound) error {
		if _, err := fs.apply(in); err != nil {
			return err
		}
		syscall.Kill(os.Getpid(), syscall.SIGKILL) // the commit is on disk; die now
		select {}
	}))
	os.Exit(3) // not killed: the message never came
}

// The process is killed (SIGKILL) right after the handler's commit, before
// \Seen: the restarted poller hands the message over again, the store
// recognises its key, nothing is applied or queued twice, and the message
// ends up in Processed.
func TestKilledBetweenCommitAndSeen(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	s := startServers(t, nil)
	fs := &fileStore{path: filepath.Join(t.TempDir(), "store.log")}
	id, raw := playerMove("referee@pbem.local", "1. e4")
	require.NoError(t, s.Deliver("alice@pbem.local", []string{"referee@pbem.local"}, raw))

	pw, _ := s.Password("referee")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1", "STORE="+fs.path, "IMAP_ADDR="+s.IMAPAddr(), "IMAP_PASSWORD="+pw)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "child: %v\n%s", err, out)
	ws := exit.Sys().(syscall.WaitStatus)
	require.True(t, ws.Signaled() && ws.Signal() == syscall.SIGKILL, "child was not killed: %v\n%s", err, out)

	require.Len(t, fs.lines(), 1, "the child committed once")
	n, unseen := count(t, s, "referee", "INBOX")
	require.Equal(t, uint32(1), n, "after the kill the message is still in the inbox")
	require.Equal(t, uint32(1), unseen)

	// The restart.
	var calls, applied int
	var mu sync.Mutex
	runPoller(t, fastPoller(t, s), mail.HandlerFunc(func(ctx context.Context, in *mail.Inbound) error {
		ok, err := fs.apply(in)
		mu.Lock()
		calls++
		if ok {
			applied++
		}
		mu.Unlock()
		return err
	}))
	eventually(t, 5*time.Second, func() bool { n, _ := count(t, s, "referee", "Processed"); return n == 1 }, "not processed after restart")
	mu.Lock()
	assert.Equal(t, 1, calls, "re-delivered once")
	assert.Equal(t, 0, applied, "nothing applied twice")
	mu.Unlock()
	lines := fs.lines()
	require.Len(t, lines, 1, "one commit, one queued reply")
	assert.True(t, strings.HasPrefix(lines[0], "<"+id+">\t"))
}
