// Package dovecottest runs a private Dovecot 2.3 IMAP server for tests: its
// own config directory under t.TempDir(), IMAP and LMTP on loopback ports,
// passwd-file accounts, maildirs owned by nobody, login processes as
// dovenull. Mail is delivered into it over LMTP, as a real MTA would.
//
// Start skips the test when the dovecot binary is absent, unless the
// environment variable PBEM_REQUIRE_DOVECOT is set (CI sets it, so that a
// missing Dovecot fails the run instead of hiding the test). The Debian
// packages are dovecot-imapd and dovecot-lmtpd; .ci/dovecot.sh installs
// them. Dovecot must be started as root.
package dovecottest

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// RequireEnv names the environment variable that turns a missing Dovecot
// from a skip into a failure.
const RequireEnv = "PBEM_REQUIRE_DOVECOT"

// Domain is the mail domain of the test accounts.
const Domain = "pbem.test"

// Server is a running Dovecot.
type Server struct {
	IMAPAddr string // host:port, plain IMAP (login allowed without TLS)
	LMTPAddr string // host:port
	Dir      string // the private config and mail directory

	t        testing.TB
	cmd      *exec.Cmd
	mu       sync.Mutex
	users    map[string]string // address -> password
	exited   chan struct{}
	stopOnce sync.Once
}

// Group is the process group of Dovecot's master and the processes it
// starts (imap, lmtp, auth, ...), so that a test can read their CPU time;
// 0 once it has stopped.
func (s *Server) Group() int {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// Binary returns the path of the dovecot binary, or "" if there is none.
func Binary() string {
	if p, err := exec.LookPath("dovecot"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/sbin/dovecot", "/usr/local/sbin/dovecot"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// Start starts Dovecot with an account for each local part in users (at
// Domain; the password is "secret-" plus the local part) and stops it when
// the test ends.
func Start(t testing.TB, users ...string) *Server {
	t.Helper()
	bin := Binary()
	if bin == "" {
		if os.Getenv(RequireEnv) != "" {
			t.Fatalf("dovecot not found and %s is set: run .ci/dovecot.sh (apt-get install dovecot-imapd dovecot-lmtpd)", RequireEnv)
		}
		t.Skipf("dovecot not installed (apt-get install dovecot-imapd dovecot-lmtpd; set %s to fail instead)", RequireEnv)
	}
	if os.Geteuid() != 0 {
		if os.Getenv(RequireEnv) != "" {
			t.Fatalf("dovecottest must run as root to start dovecot")
		}
		t.Skip("dovecottest needs root to start dovecot")
	}
	for _, name := range []string{"dovenull", "nobody"} {
		if _, err := user.Lookup(name); err != nil {
			t.Fatalf("dovecottest: user %s missing: %v", name, err)
		}
	}

	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		s, err := start(t, bin, users)
		if err == nil {
			return s
		}
		lastErr = err // most likely a port taken between probe and bind
	}
	t.Fatalf("dovecottest: %v", lastErr)
	return nil
}

func start(t testing.TB, bin string, users []string) (*Server, error) {
	dir, err := os.MkdirTemp(t.TempDir(), "dovecot")
	if err != nil {
		return nil, err
	}
	// Dovecot's mail processes run as nobody and must reach the maildirs.
	for d := dir; d != "/" && d != "." && d != os.TempDir(); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	mailDir := filepath.Join(dir, "mail")
	if err := os.Mkdir(mailDir, 0o755); err != nil {
		return nil, err
	}
	nobody, _ := user.Lookup("nobody")
	uid, _ := strconv.Atoi(nobody.Uid)
	gid, _ := strconv.Atoi(nobody.Gid)
	if err := os.Chown(mailDir, uid, gid); err != nil {
		return nil, err
	}

	s := &Server{Dir: dir, t: t, users: make(map[string]string), exited: make(chan struct{})}
	var passwd strings.Builder
	for _, u := range users {
		addr := u + "@" + Domain
		pw := "secret-" + u
		s.users[addr] = pw
		fmt.Fprintf(&passwd, "%s:{PLAIN}%s::::::\n", addr, pw)
	}
	if err := os.WriteFile(filepath.Join(dir, "passwd"), []byte(passwd.String()), 0o644); err != nil {
		return nil, err
	}
	imapPort, lmtpPort, err := freePorts()
	if err != nil {
		return nil, err
	}
	s.IMAPAddr = net.JoinHostPort("127.0.0.1", strconv.Itoa(imapPort))
	s.LMTPAddr = net.JoinHostPort("127.0.0.1", strconv.Itoa(lmtpPort))
	conf := filepath.Join(dir, "dovecot.conf")
	if err := os.WriteFile(conf, []byte(config(dir, imapPort, lmtpPort)), 0o644); err != nil {
		return nil, err
	}

	s.cmd = exec.Command(bin, "-F", "-c", conf)
	var out bytes.Buffer
	s.cmd.Stdout, s.cmd.Stderr = &out, &out
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(s.Stop)

	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := greets(s.IMAPAddr, "* OK"); err == nil {
			if err := greets(s.LMTPAddr, "220"); err == nil {
				return s, nil
			}
		}
		select {
		case <-s.exited:
			log, _ := os.ReadFile(filepath.Join(dir, "dovecot.log"))
			return nil, fmt.Errorf("dovecot exited: %s\n%s", out.String(), log)
		default:
		}
		if time.Now().After(deadline) {
			s.Stop()
			log, _ := os.ReadFile(filepath.Join(dir, "dovecot.log"))
			return nil, fmt.Errorf("dovecot not ready after 10s: %s\n%s", out.String(), log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func greets(addr, prefix string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, prefix) {
		return fmt.Errorf("unexpected greeting %q", line)
	}
	return nil
}

func freePorts() (int, int, error) {
	var ports []int
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	for i := 0; i < 2; i++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, 0, err
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports[0], ports[1], nil
}

// config is a Dovecot 2.3 configuration (2.4 renamed many of these keys).
func config(dir string, imapPort, lmtpPort int) string {
	return fmt.Sprintf(`# generated by pbem/mail/dovecottest
base_dir = %[1]s/run
state_dir = %[1]s/state
log_path = %[1]s/dovecot.log
instance_name = pbemtest-%[2]d
protocols = imap lmtp
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
default_login_user = dovenull
default_internal_user = dovecot
default_internal_group = dovecot
mail_location = maildir:%[1]s/mail/%%u
mail_uid = nobody
mail_gid = nogroup
first_valid_uid = 1
recipient_delimiter = +
lmtp_save_to_detail_mailbox = no
lmtp_hdr_delivery_address = original
passdb {
  driver = passwd-file
  args = scheme=PLAIN %[1]s/passwd
}
userdb {
  driver = static
  args = uid=nobody gid=nogroup home=%[1]s/mail/%%u
}
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = %[2]d
  }
  inet_listener imaps {
    port = 0
  }
}
service lmtp {
  inet_listener lmtp {
    address = 127.0.0.1
    port = %[3]d
  }
}
service anvil {
  chroot =
}
protocol imap {
  mail_max_userip_connections = 100
}
`, dir, imapPort, lmtpPort)
}

// Password returns the password of an account given by address.
func (s *Server) Password(addr string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.users[addr]
}

// Deliver delivers raw over LMTP to each recipient (addresses at Domain,
// plus-addresses allowed), failing the test on error.
func (s *Server) Deliver(t testing.TB, from string, to []string, raw []byte) {
	t.Helper()
	if err := s.TryDeliver(from, to, raw); err != nil {
		t.Fatalf("dovecottest: LMTP delivery: %v", err)
	}
}

// TryDeliver delivers raw over LMTP to each recipient.
func (s *Server) TryDeliver(from string, to []string, raw []byte) error {
	conn, err := net.DialTimeout("tcp", s.LMTPAddr, 5*time.Second)
	if err != nil {
		return err
	}
	c := smtp.NewClientLMTP(conn)
	defer c.Close()
	if err := c.Hello("localhost"); err != nil {
		return err
	}
	if err := c.Mail(from, nil); err != nil {
		return err
	}
	for _, rcpt := range to {
		if err := c.Rcpt(rcpt, nil); err != nil {
			return err
		}
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(raw); err != nil {
		return err
	}
	if _, err := w.CloseWithLMTPResponse(); err != nil {
		return err
	}
	return c.Quit()
}

// Stop stops Dovecot and waits for it to exit.
func (s *Server) Stop() {
	s.stopOnce.Do(func() {
		if s.cmd == nil || s.cmd.Process == nil {
			return
		}
		s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(5 * time.Second):
			syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
			<-s.exited
		}
	})
}

// Log returns Dovecot's log so far, for failure messages.
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "dovecot.log"))
	return string(b)
}
