package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/require"

	"pbem/mail/dovecottest"
)

// authRelay is relay with AUTH PLAIN, which the players' clients use; it
// takes any password (Dovecot checks them on IMAP).
type authRelay struct{ dv *dovecottest.Server }

func (r authRelay) NewSession(*smtp.Conn) (smtp.Session, error) {
	return &authRelaySession{relaySession{dv: r.dv}}, nil
}

type authRelaySession struct{ relaySession }

func (s *authRelaySession) AuthMechanisms() []string { return []string{sasl.Plain} }
func (s *authRelaySession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(string, string, string) error { return nil }), nil
}

// TestSoakKill9Dovecot is TestSoakKill9 the way a club deploys pbem: the
// referee's mailbox on a real Dovecot, replies handed to an SMTP server
// that delivers into it over LMTP (not the embedded servers, which can say
// what they hold). The SMTP server cannot be asked which replies it took:
// every reply also goes to the referee's +sent address, and after a kill
// the replies under way are looked up there (smtp.copies). At most one
// reply may arrive twice (PBEM_SOAK_MAX_DOUBLED): one whose copy takes
// longer than smtp.copy_wait. PBEM_SOAK_COPIES=off measures without the
// copies. A normal run is short (8 games, 80 moves, 8 kills); the
// PBEM_SOAK_* variables of TestSoakKill9 set a full one.
func TestSoakKill9Dovecot(t *testing.T) {
	if testing.Short() {
		t.Skip("builds pbem and plays for a minute or more")
	}
	// Short in a normal run: the full soak is PBEM_SOAK_GAMES=24
	// PBEM_SOAK_MOVES=300 PBEM_SOAK_KILLS=25.
	for k, v := range map[string]string{"PBEM_SOAK_GAMES": "8", "PBEM_SOAK_MOVES": "80", "PBEM_SOAK_KILLS": "8"} {
		if os.Getenv(k) == "" {
			t.Setenv(k, v)
		}
	}
	names := []string{"referee", "alice", "bob", "carol", "dave"}
	dv := dovecottest.Start(t, names...)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	relaySrv := smtp.NewServer(authRelay{dv})
	relaySrv.Domain, relaySrv.AllowInsecureAuth = "localhost", true
	go relaySrv.Serve(ln)
	t.Cleanup(func() { relaySrv.Close() })

	copies := os.Getenv("PBEM_SOAK_COPIES")
	if copies == "" {
		copies = "on"
	}
	dir := t.TempDir()
	ref := "referee@" + dovecottest.Domain
	srv := &soakServer{t: t, data: filepath.Join(dir, "data"), log: filepath.Join(dir, "serve.log"), http: soakPort(t), maxDoubled: 1}
	if copies == "off" {
		srv.maxDoubled = 1 << 20 // measured, not asserted
	}
	cfg := filepath.Join(dir, "pbem.yaml")
	require.NoError(t, os.WriteFile(cfg, fmt.Appendf(nil, `data_dir: %s
referee:
  address: %s
imap:
  addr: %s
  security: plain
  poll_interval: 5s
smtp:
  addr: %s
  security: plain
  copies: %s
log:
  level: info
`, srv.data, ref, dv.IMAPAddr, ln.Addr(), copies), 0o600))
	srv.args = []string{"--config", cfg}
	srv.env = []string{"PBEM_IMAP_PASSWORD=" + dv.Password(ref)}
	srv.ready = "127.0.0.1:" + strconv.Itoa(srv.http)
	runSoak(t, srv, dovecottest.Domain, func(name string) *player {
		addr := name + "@" + dovecottest.Domain
		return &player{addr: addr, pass: dv.Password(addr), imapAddr: dv.IMAPAddr, smtpAddr: ln.Addr().String()}
	})
}
