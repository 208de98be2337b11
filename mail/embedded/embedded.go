// Package embedded runs an in-process mail system on loopback: an IMAP
// server (go-imap's imapserver over a patched copy of its imapmemserver,
// internal/imapmemserver) and an SMTP server (go-smtp) that delivers into
// it. It is what "pbem serve" uses when no mail server is configured, and
// what the mail tests and benchmarks run against.
//
// The accounts are the referee's mailbox (referee@pbem.local by default) and
// a few demo players (alice, bob, carol, dave). With Options.Dir set, every
// change to a mailbox is journaled there and fsynced before it is
// acknowledged (a delivery before the SMTP server's 250), and the journal is
// replayed at the next start: a crash loses nothing the servers accepted.
// The journal is compacted into a snapshot of the mail it holds while the
// servers run (online.go) and when they stop. Without Dir, mail is kept in
// memory only.
//
// The players' mail is bounded, per mailbox (Options.MaxMessages) and all
// together in bytes (Options.MaxBytes, 16 MB by default): past a bound the
// oldest messages are expunged. The referee's mailbox is not bounded; its
// poller empties it.
//
// The SMTP server takes mail only from a logged-in account (AUTH PLAIN,
// on loopback without TLS or after STARTTLS), and only with that account's
// address as envelope sender and in From.
package embedded

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	netmail "net/mail"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"pbem/mail/embedded/internal/imapmemserver"
)

// DefaultMaxBytes is Options.MaxBytes unless set: about 1,300 replies with
// their board pictures, held in about that memory (a mailbox keeps each
// message in a buffer of its size).
const DefaultMaxBytes = 16 << 20

// Options configures Start. The zero value (or nil) gives the defaults.
type Options struct {
	// Host is the address to listen on (default "127.0.0.1"). Listening
	// on anything but loopback exposes unencrypted login: don't.
	Host string
	// IMAPPort and SMTPPort default to 0: a random free port.
	IMAPPort, SMTPPort int
	// Domain of every account (default "pbem.local").
	Domain string
	// Referee is the local part of the referee's mailbox (default
	// "referee").
	Referee string
	// Players are the local parts of the demo player accounts (default
	// alice, bob, carol, dave).
	Players []string
	// Passwords maps a local part to its password. Accounts not listed
	// use DefaultPassword, or their local part when that is empty too.
	Passwords       map[string]string
	DefaultPassword string
	// MaxMessages bounds each mailbox of a player account: a delivery
	// that takes one past it expunges the oldest messages (default 200,
	// about 3 MB of replies with their board pictures; negative: no
	// bound). The referee's mailbox is not bounded: its poller empties
	// it.
	MaxMessages int
	// MaxBytes bounds the mail of all player accounts together: past
	// it, the oldest messages are expunged, whoever holds them (default
	// DefaultMaxBytes; negative: no bound). The servers' memory and
	// their journal stay bounded however many players there are.
	MaxBytes int64
	// Dir, if set, keeps the mail durably: one journal per account, made
	// if missing and replayed at start. "" keeps mail in memory only.
	Dir string
	// Logger defaults to slog.Default(); server errors are logged at
	// debug level.
	Logger *slog.Logger

	// OnDelivery, if set, is called with each message the SMTP server
	// (or Deliver) delivered, once it is durable and in the mailbox,
	// before the 250: the envelope sender, the recipient as given and
	// the message as submitted. It is for load drivers and tests that
	// time deliveries; it must not block.
	OnDelivery func(from, rcpt string, raw []byte)

	// wrapJournal, if set, wraps the journal file once it is open (tests
	// count and hold its fsyncs).
	wrapJournal func(journalFile) journalFile
}

// Account is one mailbox on the embedded servers.
type Account struct {
	Address  string // e.g. referee@pbem.local; also the login name
	Password string
}

// Servers is a running pair of embedded IMAP and SMTP servers.
type Servers struct {
	opts     Options
	log      *slog.Logger
	accounts []Account
	accts    map[string]*account // by local part
	journal  *journal            // nil: mail in memory only
	recent   *recent             // the last SMTP deliveries (nil: mail in memory only)
	tlsConf  *tls.Config
	certPool *x509.CertPool

	imapLn net.Listener
	imap   *imapserver.Server
	smtpLn net.Listener
	smtp   *smtp.Server

	mu    sync.Mutex
	conns map[net.Conn]struct{} // open IMAP connections
}

// Start starts the servers and returns once both are listening.
func Start(opts *Options) (*Servers, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Host == "" {
		o.Host = "127.0.0.1"
	}
	if o.Domain == "" {
		o.Domain = "pbem.local"
	}
	if o.Referee == "" {
		o.Referee = "referee"
	}
	if o.Players == nil {
		o.Players = []string{"alice", "bob", "carol", "dave"}
	}
	if o.MaxMessages == 0 {
		o.MaxMessages = 200
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	var bound *ledger
	if o.MaxBytes > 0 {
		bound = &ledger{max: o.MaxBytes}
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	s := &Servers{
		opts:  o,
		log:   log.With("component", "embedded-mail"),
		accts: make(map[string]*account),
		conns: make(map[net.Conn]struct{}),
	}
	if o.Dir != "" {
		if err := os.MkdirAll(o.Dir, 0o700); err != nil {
			return nil, fmt.Errorf("embedded: %w", err)
		}
	}
	for _, local := range append([]string{o.Referee}, o.Players...) {
		local = strings.ToLower(local)
		if _, dup := s.accts[local]; dup {
			continue
		}
		pw := o.Passwords[local]
		if pw == "" {
			pw = o.DefaultPassword
		}
		if pw == "" {
			pw = local
		}
		addr := local + "@" + o.Domain
		u := imapmemserver.NewUser(addr, pw)
		for _, mbox := range []string{"INBOX", "Sent"} {
			if err := u.Create(mbox, nil); err != nil {
				return nil, fmt.Errorf("embedded: create %s for %s: %w", mbox, addr, err)
			}
		}
		acct := &account{user: u, addr: addr, local: local}
		if local != strings.ToLower(o.Referee) {
			acct.max = max(o.MaxMessages, 0)
			acct.ledger = bound
		}
		s.accts[local] = acct
		s.accounts = append(s.accounts, Account{Address: addr, Password: pw})
	}
	if o.Dir != "" {
		s.recent = newRecent()
		for _, acct := range s.accts {
			acct.recent = s.recent
		}
		j, n, err := openJournal(o.Dir, s.accts, o.wrapJournal)
		if err != nil {
			return nil, err
		}
		s.journal = j
		for _, acct := range s.accts {
			acct.j = j
		}
		s.log.Debug("mailboxes restored", "changes", n)
		j.startCompactor(s.log)
		if err := bound.recount(); err != nil {
			s.closeJournals()
			return nil, fmt.Errorf("embedded: %w", err)
		}
		if err := bound.evict(); err != nil {
			s.closeJournals()
			return nil, fmt.Errorf("embedded: %w", err)
		}
		if err := syncDir(o.Dir); err != nil {
			s.closeJournals()
			return nil, fmt.Errorf("embedded: %w", err)
		}
	}

	cert, pool, err := selfSigned(o.Host)
	if err != nil {
		return nil, err
	}
	s.tlsConf = &tls.Config{Certificates: []tls.Certificate{cert}}
	s.certPool = pool

	if s.imapLn, err = net.Listen("tcp", net.JoinHostPort(o.Host, strconv.Itoa(o.IMAPPort))); err != nil {
		return nil, fmt.Errorf("embedded: imap listen: %w", err)
	}
	if s.smtpLn, err = net.Listen("tcp", net.JoinHostPort(o.Host, strconv.Itoa(o.SMTPPort))); err != nil {
		s.imapLn.Close()
		return nil, fmt.Errorf("embedded: smtp listen: %w", err)
	}
	s.startIMAP()
	s.startSMTP()
	return s, nil
}

func (s *Servers) startIMAP() {
	s.imap = imapserver.New(&imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return idleFlushSession{&imapSession{s: s}}, nil, nil
		},
		Caps: imap.CapSet{
			imap.CapIMAP4rev1: {},
			imap.CapIMAP4rev2: {},
		},
		TLSConfig:    s.tlsConf,
		InsecureAuth: true,
		Logger:       slogPrintf{s.log.With("server", "imap")},
	})
	go s.imap.Serve(&trackingListener{Listener: s.imapLn, s: s})
}

func (s *Servers) startSMTP() {
	srv := smtp.NewServer(&backend{s: s})
	srv.Domain = s.opts.Domain
	srv.TLSConfig = s.tlsConf
	srv.AllowInsecureAuth = true
	srv.MaxMessageBytes = 10 << 20
	srv.MaxRecipients = 50
	srv.ReadTimeout = 5 * time.Minute
	srv.WriteTimeout = 5 * time.Minute
	srv.ErrorLog = slogPrintf{s.log.With("server", "smtp")}
	s.smtp = srv
	go srv.Serve(s.smtpLn)
}

// IMAPAddr returns the IMAP server's host:port.
func (s *Servers) IMAPAddr() string { return s.imapLn.Addr().String() }

// SMTPAddr returns the SMTP server's host:port.
func (s *Servers) SMTPAddr() string { return s.smtpLn.Addr().String() }

// Domain returns the mail domain of every account.
func (s *Servers) Domain() string { return s.opts.Domain }

// RefereeAddress returns the referee's address, e.g. referee@pbem.local.
func (s *Servers) RefereeAddress() string { return s.opts.Referee + "@" + s.opts.Domain }

// Accounts returns every account, the referee's first.
func (s *Servers) Accounts() []Account { return slices.Clone(s.accounts) }

// Password returns the password of the account with the given address or
// local part, and whether there is such an account.
func (s *Servers) Password(user string) (string, bool) {
	local, ok := s.local(user)
	if !ok {
		return "", false
	}
	for _, a := range s.accounts {
		if a.Address == local+"@"+s.opts.Domain {
			return a.Password, true
		}
	}
	return "", false
}

// TLSConfig returns a client configuration that trusts the servers'
// self-signed certificate (both offer STARTTLS).
func (s *Servers) TLSConfig() *tls.Config {
	return &tls.Config{RootCAs: s.certPool, ServerName: s.opts.Host}
}

// Status returns the message counts of a user's mailbox, e.g.
// Status("referee", "Processed").
func (s *Servers) Status(user, mailbox string) (*imap.StatusData, error) {
	local, ok := s.local(user)
	if !ok {
		return nil, fmt.Errorf("embedded: no account %q", user)
	}
	return s.accts[local].user.Status(mailbox, &imap.StatusOptions{NumMessages: true, NumUnseen: true, UIDNext: true})
}

// ErrNoMailbox is Deliver's error for a recipient the servers do not have.
var ErrNoMailbox = errors.New("embedded: no mailbox")

// Deliver puts a message straight into the INBOX of each local recipient,
// as the SMTP server does, adding Delivered-To and Return-Path, durably
// before it returns. It is for a sender in the same process
// (mail.SenderOptions.Direct), tests and benchmarks: no SMTP round trip.
func (s *Servers) Deliver(from string, to []string, raw []byte) error {
	for _, rcpt := range to {
		local, ok := s.local(rcpt)
		if !ok {
			return fmt.Errorf("%w for %q", ErrNoMailbox, rcpt)
		}
		if err := s.deliverTo(local, rcpt, from, headerMessageID(raw), raw); err != nil {
			return err
		}
	}
	return nil
}

// deliverTo delivers raw into the INBOX of local, durably, remembering it
// by from, local and messageID for Delivered.
func (s *Servers) deliverTo(local, rcpt, from, messageID string, raw []byte) error {
	now := time.Now()
	b := make([]byte, 0, len(raw)+200)
	b = fmt.Appendf(b, "Return-Path: <%s>\r\nDelivered-To: %s\r\nReceived: by %s (pbem embedded); %s\r\n",
		headerSafe(from), headerSafe(rcpt), s.opts.Domain, now.Format(time.RFC1123Z))
	b = append(b, raw...)
	_, err := s.accts[local].deliver("INBOX", b, nil, now, deliveryKey(from, local, messageID))
	if err == nil && s.opts.OnDelivery != nil {
		s.opts.OnDelivery(from, rcpt, raw)
	}
	return err
}

// local maps an address (with any +detail) or a local part to a known local
// part.
func (s *Servers) local(addr string) (string, bool) {
	addr = strings.ToLower(strings.TrimSpace(addr))
	local, domain, hasDomain := strings.Cut(addr, "@")
	if hasDomain && domain != strings.ToLower(s.opts.Domain) {
		return "", false
	}
	local, _, _ = strings.Cut(local, "+")
	_, ok := s.accts[local]
	return local, ok
}

// DropIMAPConnections closes every open IMAP connection from the server
// side, as a server restart or a network failure would. The server keeps
// listening and the mail is kept. It is for fault tests.
func (s *Servers) DropIMAPConnections() int {
	s.mu.Lock()
	conns := make([]net.Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	return len(conns)
}

// Close stops both servers and closes the journals. Without Options.Dir
// the mail is lost.
func (s *Servers) Close() error {
	err := s.smtp.Close()
	if err2 := s.imap.Close(); err == nil {
		err = err2
	}
	s.closeJournals()
	if s.journal != nil {
		// Compacted now rather than at the next start, which then
		// replays only the mail there is (compact.go).
		if before, after, cerr := compact(s.journal.path); cerr != nil {
			s.log.Warn("embedded: journal not compacted", "err", cerr)
		} else if after < before {
			s.log.Debug("embedded: journal compacted", "before", before, "after", after)
		}
	}
	return err
}

func (s *Servers) closeJournals() {
	if s.journal != nil {
		s.journal.close()
	}
}

// Instructions tells a person how to point a mail client at the servers.
func (s *Servers) Instructions() string {
	var b strings.Builder
	ihost, iport, _ := net.SplitHostPort(s.IMAPAddr())
	_, sport, _ := net.SplitHostPort(s.SMTPAddr())
	if s.opts.Dir != "" {
		fmt.Fprintf(&b, "Embedded mail server (mail kept in %s)\n\n", s.opts.Dir)
	} else {
		fmt.Fprintf(&b, "Embedded mail server (in memory; mail is lost when pbem stops)\n\n")
	}
	fmt.Fprintf(&b, "  Incoming (IMAP): server %s, port %s\n", ihost, iport)
	fmt.Fprintf(&b, "  Outgoing (SMTP): server %s, port %s\n", ihost, sport)
	fmt.Fprintf(&b, "  Security: none (or STARTTLS with a self-signed certificate)\n")
	fmt.Fprintf(&b, "  Authentication: normal password, for sending too; user name = full address\n\n")
	fmt.Fprintf(&b, "  Accounts:\n")
	for i, a := range s.accounts {
		role := "player"
		if i == 0 {
			role = "referee (pbem reads this mailbox)"
		}
		fmt.Fprintf(&b, "    %-24s password %-12s %s\n", a.Address, a.Password, role)
	}
	fmt.Fprintf(&b, "\n  Send your moves to %s. Mail to anyone outside %s is refused.\n", s.RefereeAddress(), s.opts.Domain)
	if len(s.accounts) > 1 {
		p := s.accounts[1]
		fmt.Fprintf(&b, "  Example: swaks --server %s --auth PLAIN --auth-user %s --auth-password %s --to %s --from %s --body 'help'\n",
			s.SMTPAddr(), p.Address, p.Password, s.RefereeAddress(), p.Address)
	}
	return b.String()
}

// backend is the SMTP side: it accepts mail from a logged-in account, sent
// as that account, for local accounts only, and delivers it into their
// INBOX.
type backend struct{ s *Servers }

func (be *backend) NewSession(*smtp.Conn) (smtp.Session, error) {
	return &session{s: be.s}, nil
}

type session struct {
	s     *Servers
	user  string // authenticated local part, if any
	from  string
	rcpts []string
}

func (ss *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (ss *session) Auth(mech string) (sasl.Server, error) {
	if mech != sasl.Plain {
		return nil, smtp.ErrAuthUnknownMechanism
	}
	return sasl.NewPlainServer(func(identity, username, password string) error {
		local, ok := ss.s.local(username)
		if !ok || strings.Contains(username, "+") {
			return smtp.ErrAuthFailed
		}
		if identity != "" && identity != username {
			return smtp.ErrAuthFailed
		}
		if pw, _ := ss.s.Password(local); pw != password {
			return smtp.ErrAuthFailed
		}
		ss.user = local
		return nil
	}), nil
}

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	if ss.user == "" {
		return &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "Authentication required: log in (AUTH PLAIN) with your address and password"}
	}
	if !ss.isUser(from) {
		return &smtp.SMTPError{
			Code:         553,
			EnhancedCode: smtp.EnhancedCode{5, 7, 1},
			Message:      fmt.Sprintf("Sender <%s> is not the address you logged in as (%s@%s)", headerSafe(from), ss.user, ss.s.opts.Domain),
		}
	}
	ss.from = from
	return nil
}

// isUser reports whether addr is the logged-in account's address (with any
// +detail).
func (ss *session) isUser(addr string) bool {
	local, ok := ss.s.local(addr)
	return ok && strings.Contains(addr, "@") && local == ss.user
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if _, ok := ss.s.local(to); !ok {
		return &smtp.SMTPError{
			Code:         550,
			EnhancedCode: smtp.EnhancedCode{5, 1, 1},
			Message:      "No such mailbox here (the embedded server delivers only to @" + ss.s.opts.Domain + ")",
		}
	}
	ss.rcpts = append(ss.rcpts, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if len(ss.rcpts) == 0 {
		return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 5, 1}, Message: "No valid recipients"}
	}
	from, messageID, ok := headerFrom(raw)
	if !ok || !ss.isUser(from) {
		return &smtp.SMTPError{
			Code:         550,
			EnhancedCode: smtp.EnhancedCode{5, 7, 1},
			Message:      fmt.Sprintf("From: must be the address you logged in as (%s@%s)", ss.user, ss.s.opts.Domain),
		}
	}
	for _, rcpt := range ss.rcpts {
		local, _ := ss.s.local(rcpt)
		// deliverTo returns once the message is durable: only then
		// does the client get its 250.
		if err := ss.s.deliverTo(local, rcpt, ss.from, messageID, raw); err != nil {
			ss.s.log.Error("delivery failed", "to", rcpt, "err", err)
			return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Delivery failed; try again later"}
		}
	}
	return nil
}

// headerFrom returns the single address of raw's From field, and its
// Message-ID field.
func headerFrom(raw []byte) (from, messageID string, ok bool) {
	m, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return "", "", false
	}
	list, err := m.Header.AddressList("From")
	if err != nil || len(list) != 1 {
		return "", "", false
	}
	return list[0].Address, m.Header.Get("Message-Id"), true
}

func (ss *session) Reset() {
	ss.from, ss.rcpts = "", nil
}

func (ss *session) Logout() error { return nil }

// literal is an imap.LiteralReader over bytes in memory.
type literal struct {
	io.Reader
	size int64
}

func (l literal) Size() int64 { return l.size }

func headerSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' || r == '<' || r == '>' {
			return -1
		}
		return r
	}, s)
}

// trackingListener remembers accepted connections, for DropIMAPConnections.
type trackingListener struct {
	net.Listener
	s *Servers
}

func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: c, s: l.s}
	l.s.mu.Lock()
	l.s.conns[tc] = struct{}{}
	l.s.mu.Unlock()
	return tc, nil
}

type trackedConn struct {
	net.Conn
	s    *Servers
	once sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.s.mu.Lock()
		delete(c.s.conns, c)
		c.s.mu.Unlock()
	})
	return c.Conn.Close()
}

type slogPrintf struct{ log *slog.Logger }

func (l slogPrintf) Printf(format string, args ...any) {
	l.log.Debug(strings.TrimSpace(fmt.Sprintf(format, args...)))
}

func (l slogPrintf) Println(args ...any) {
	l.log.Debug(strings.TrimSpace(fmt.Sprintln(args...)))
}

// selfSigned makes a throwaway certificate for host, valid for a year.
func selfSigned(host string) (tls.Certificate, *x509.CertPool, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{Organization: []string{"pbem embedded mail"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
	}
	if ip := net.ParseIP(host); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = append(tmpl.DNSNames, host)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool, nil
}

// idleFlushSession works around a lost-wakeup race in imapserver's
// SessionTracker.Idle (v2.0.0-beta.8): it writes only updates queued after
// IDLE began, so a message delivered between the client's last command and
// its IDLE stays unannounced until the next update. Idle therefore flushes
// pending updates as soon as IDLE starts and then every idleFlushInterval,
// which bounds the delay even when the tracker registers late.
type idleFlushSession struct {
	imapserver.SessionIMAP4rev2
}

const idleFlushInterval = 250 * time.Millisecond

func (s idleFlushSession) Idle(w *imapserver.UpdateWriter, stop <-chan struct{}) error {
	done := make(chan error, 1)
	go func() { done <- s.SessionIMAP4rev2.Idle(w, stop) }()
	first := time.NewTimer(time.Millisecond)
	defer first.Stop()
	tick := time.NewTicker(idleFlushInterval)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-stop:
			return <-done
		case <-first.C:
		case <-tick.C:
		}
		if err := s.Poll(w, true); err != nil {
			return err
		}
	}
}
