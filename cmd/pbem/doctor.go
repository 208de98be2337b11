package main

import (
	"context"
	"crypto/tls"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"pbem/archive"
	"pbem/mail"
)

// A finding of pbem doctor: what was checked, how it went, and what to do.
type finding struct {
	level string // ok, warn, FAIL, skip
	what  string
	fix   string
}

// doctor runs the checks of pbem doctor on a configuration.
type doctor struct {
	cfg      *Config
	getenv   func(string) string
	mailTo   string
	timeout  time.Duration
	resolver *net.Resolver
	// tlsConfig is for tests (a server with its own certificate).
	tlsConfig *tls.Config
	now       func() time.Time
	out       []finding
}

func (d *doctor) add(level, what, fix string) { d.out = append(d.out, finding{level, what, fix}) }

func runDoctor(c *cli, args []string) int {
	fs := c.flags("doctor")
	config := fs.String("config", "", "configuration `file` of pbem serve (default: the embedded servers, which need no check of mail or DNS)")
	data := fs.String("data", "", "data `dir`ectory (default: the config's data_dir, else ./pbem-data)")
	mailTo := fs.String("mail-to", "", "send a test mail to this `addr`ess through the SMTP server")
	timeout := fs.Duration("timeout", 10*time.Second, "bound of each network check")
	pos, code, done := c.parse(fs, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		// An address alone is the test mail's recipient.
		if len(pos) == 1 && strings.Contains(pos[0], "@") && *mailTo == "" {
			*mailTo = pos[0]
		} else {
			fmt.Fprintf(c.stderr, "pbem doctor: unexpected argument %q\n", pos[0])
			return 2
		}
	}
	d := &doctor{getenv: os.Getenv, mailTo: *mailTo, timeout: *timeout, resolver: net.DefaultResolver, now: time.Now}
	if *config == "" {
		d.cfg, _ = operatorConfig("", *data)
		d.add("ok", "no --config: pbem serve runs its own mail servers on loopback", "")
		d.checkData(context.Background())
		d.checkClock()
	} else {
		d.run(context.Background(), *config, *data)
	}
	return d.report(c.stdout)
}

// run checks everything the configuration file names.
func (d *doctor) run(ctx context.Context, path, data string) {
	cfg, err := loadConfig(path)
	if err != nil {
		d.add("FAIL", "configuration: "+err.Error(), "correct the file; pbem serve refuses to start with it")
		return
	}
	if data != "" {
		cfg.DataDir = data
	}
	d.cfg = cfg
	if err := cfg.checkSecrets(d.getenv); err != nil {
		d.add("FAIL", "configuration: "+err.Error(), "export the variable in the environment pbem serve runs in (the systemd unit's EnvironmentFile)")
	} else {
		d.add("ok", "configuration "+path+" loads", "")
	}
	if publicHTTP(cfg.HTTP.Addr) {
		d.add("warn", "http.addr "+cfg.HTTP.Addr+" is not loopback: /healthz and /metrics are public", "bind it to 127.0.0.1 unless a proxy guards it")
	}
	d.checkIMAP(ctx)
	d.checkSMTP(ctx)
	d.checkData(ctx)
	d.checkClock()
	d.checkDNS(ctx)
}

// report prints the findings and returns the exit code: 1 if any failed.
func (d *doctor) report(w io.Writer) int {
	code := 0
	for _, f := range d.out {
		fmt.Fprintf(w, "[%s] %s\n", f.level, f.what)
		if f.fix != "" {
			fmt.Fprintf(w, "       -> %s\n", f.fix)
		}
		if f.level == "FAIL" {
			code = 1
		}
	}
	return code
}

// netFix says what to do about a connection that failed.
func netFix(addr string, err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return "no answer from " + addr + " in time: check the host, the port and any firewall between"
	case strings.Contains(err.Error(), "connection refused"):
		return "nothing listens on " + addr + ": check the port (IMAP 993 with tls, 143 with starttls; SMTP 465 with tls, 587 with starttls)"
	case strings.Contains(err.Error(), "no such host"):
		return "the host name does not resolve: check its spelling"
	case strings.Contains(err.Error(), "tls") || strings.Contains(err.Error(), "certificate"):
		return "the TLS handshake failed: check the security setting (tls, starttls) against the port, and the server's certificate"
	}
	return "check the address and the security setting"
}

func (d *doctor) imapPassword() string { return d.getenv(d.cfg.IMAP.PasswordEnv) }
func (d *doctor) smtpPassword() string { return d.getenv(d.cfg.SMTP.PasswordEnv) }

// checkIMAP logs in, looks for IDLE and selects the inbox.
func (d *doctor) checkIMAP(ctx context.Context) {
	cfg := d.cfg.IMAP
	if _, err := mail.CheckSecurity(mail.Security(cfg.Security), cfg.Addr, false); err != nil {
		d.add("FAIL", "IMAP: "+err.Error(), "set imap.security to tls or starttls; pbem serve refuses this too, and the password would go in clear")
		return
	}
	opts := &imapclient.Options{TLSConfig: d.tlsConfig, Dialer: &net.Dialer{Timeout: d.timeout}}
	var c *imapclient.Client
	var err error
	switch mail.Security(cfg.Security) {
	case mail.SecurityTLS:
		c, err = imapclient.DialTLS(cfg.Addr, opts)
	case mail.SecurityStartTLS:
		c, err = imapclient.DialStartTLS(cfg.Addr, opts)
	default:
		c, err = imapclient.DialInsecure(cfg.Addr, opts)
	}
	if err != nil {
		d.add("FAIL", fmt.Sprintf("IMAP %s (%s): %v", cfg.Addr, cfg.Security, err), netFix(cfg.Addr, err))
		return
	}
	defer c.Close()
	done := make(chan error, 1)
	go func() { done <- c.Login(cfg.Username, d.imapPassword()).Wait() }()
	select {
	case err = <-done:
	case <-time.After(d.timeout):
		err = os.ErrDeadlineExceeded
	}
	if err != nil {
		d.add("FAIL", fmt.Sprintf("IMAP login as %s: %v", cfg.Username, err),
			fmt.Sprintf("check imap.username and the password in $%s (an app password where the provider asks for one)", cfg.PasswordEnv))
		return
	}
	d.add("ok", fmt.Sprintf("IMAP %s: logged in as %s", cfg.Addr, cfg.Username), "")
	caps, err := c.Capability().Wait()
	if err == nil && caps.Has("IDLE") {
		d.add("ok", "IMAP server offers IDLE: mail is read as it arrives", "")
	} else {
		d.add("warn", "IMAP server does not offer IDLE: mail is read every imap.poll_interval ("+d.cfg.IMAP.PollInterval.String()+")",
			"lower imap.poll_interval if replies come too slowly")
	}
	box := cfg.Mailbox
	if box == "" {
		box = "INBOX"
	}
	if _, err := c.Select(box, &imap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
		d.add("FAIL", fmt.Sprintf("IMAP mailbox %s: %v", box, err), "check imap.mailbox")
	}
	c.Logout().Wait()
}

// checkSMTP says hello, authenticates and, with --mail-to, sends a test
// mail.
func (d *doctor) checkSMTP(ctx context.Context) {
	cfg := d.cfg.SMTP
	if _, err := mail.CheckSecurity(mail.Security(cfg.Security), cfg.Addr, false); err != nil {
		d.add("FAIL", "SMTP: "+err.Error(), "set smtp.security to tls or starttls; pbem serve refuses this too, and the password would go in clear")
		return
	}
	var c *smtp.Client
	var err error
	dialer := &net.Dialer{Timeout: d.timeout}
	switch mail.Security(cfg.Security) {
	case mail.SecurityTLS:
		var conn net.Conn
		if conn, err = tls.DialWithDialer(dialer, "tcp", cfg.Addr, d.tlsConfig); err == nil {
			c = smtp.NewClient(conn)
		}
	default:
		var conn net.Conn
		if conn, err = dialer.Dial("tcp", cfg.Addr); err == nil {
			if mail.Security(cfg.Security) == mail.SecurityStartTLS {
				c, err = smtp.NewClientStartTLS(conn, d.tlsConfig)
			} else {
				c = smtp.NewClient(conn)
			}
		}
	}
	if err != nil {
		d.add("FAIL", fmt.Sprintf("SMTP %s (%s): %v", cfg.Addr, cfg.Security, err), netFix(cfg.Addr, err))
		return
	}
	defer c.Close()
	c.CommandTimeout, c.SubmissionTimeout = d.timeout, d.timeout
	if err := c.Hello(helo(cfg.Helo)); err != nil {
		d.add("FAIL", fmt.Sprintf("SMTP %s: EHLO: %v", cfg.Addr, err), "check smtp.helo, or the server's log")
		return
	}
	if cfg.Username != "" {
		if ok, _ := c.Extension("AUTH"); !ok {
			d.add("FAIL", fmt.Sprintf("SMTP %s offers no AUTH", cfg.Addr), "use the provider's submission port (587 starttls or 465 tls), which authenticates")
			return
		}
		if err := c.Auth(sasl.NewPlainClient("", cfg.Username, d.smtpPassword())); err != nil {
			d.add("FAIL", fmt.Sprintf("SMTP AUTH as %s: %v", cfg.Username, err),
				fmt.Sprintf("check smtp.username and the password in $%s", cfg.PasswordEnv))
			return
		}
		d.add("ok", fmt.Sprintf("SMTP %s: authenticated as %s", cfg.Addr, cfg.Username), "")
	} else {
		d.add("warn", fmt.Sprintf("SMTP %s: no smtp.username, so no AUTH", cfg.Addr), "most providers relay only authenticated mail")
	}
	if d.mailTo == "" {
		d.add("skip", "no test mail sent", "give an address (pbem doctor --config FILE you@example.org) to send one")
		return
	}
	o := &mail.Outgoing{From: mail.Address{Name: d.cfg.Referee.Name, Addr: d.cfg.Referee.Address}, To: []mail.Address{{Addr: d.mailTo}},
		Subject: "pbem doctor: test mail", Date: d.now(), MessageID: mail.NewMessageID(domainOf(d.cfg.Referee.Address)),
		Text: "This mail tests the SMTP settings of a pbem referee. It needs no answer.\n", AutoSubmitted: mail.AutoGenerated}
	if err := c.SendMail(d.cfg.Referee.Address, []string{d.mailTo}, strings.NewReader(string(mail.Compose(o)))); err != nil {
		d.add("FAIL", fmt.Sprintf("test mail to %s: %v", d.mailTo, err), "the server refused it: check that it lets "+cfg.Username+" send as "+d.cfg.Referee.Address)
		return
	}
	d.add("ok", fmt.Sprintf("test mail to %s accepted (Message-ID <%s>)", d.mailTo, o.MessageID), "look for it, and in its spam folder")
	c.Quit()
}

func helo(h string) string {
	if h != "" {
		return h
	}
	if n, err := os.Hostname(); err == nil && n != "" {
		return n
	}
	return "localhost"
}

// checkData checks the data directory: its permissions, that it is
// writable, its free space and the store's schema.
func (d *doctor) checkData(ctx context.Context) {
	dir := d.cfg.DataDir
	st, err := os.Stat(dir)
	if err != nil {
		d.add("warn", fmt.Sprintf("data directory %s: %v", dir, err), "pbem serve creates it at start; check that its parent is writable by the referee's user")
		return
	}
	if !st.IsDir() {
		d.add("FAIL", fmt.Sprintf("data directory %s is not a directory", dir), "point data_dir at a directory")
		return
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		d.add("warn", fmt.Sprintf("data directory %s is open to others (mode %04o): it holds the players' tokens", dir, perm), "chmod 700 "+dir)
	} else {
		d.add("ok", fmt.Sprintf("data directory %s is the owner's alone (mode %04o)", dir, st.Mode().Perm()), "")
	}
	f, err := os.CreateTemp(dir, ".doctor-")
	if err != nil {
		d.add("FAIL", fmt.Sprintf("data directory %s is not writable: %v", dir, err), "run pbem as the directory's owner, or chown it")
		return
	}
	f.Close()
	os.Remove(f.Name())
	if free, ok := freeSpace(dir); ok {
		const low = 1 << 30
		if free < low {
			d.add("warn", fmt.Sprintf("data directory %s: %s free", dir, mib(free)), "free space: the store and its backups grow with the games")
		} else {
			d.add("ok", fmt.Sprintf("data directory %s: %s free", dir, mib(free)), "")
		}
	}
	if _, err := os.Stat(filepath.Join(dir, archive.DBFile)); err != nil {
		d.add("ok", "no store yet: pbem serve creates it", "")
		return
	}
	if unlock, err := lockData(dir); err == nil {
		unlock()
	} else if errors.Is(err, errLocked) {
		d.add("ok", err.Error(), "")
	}
	// Read only: the doctor migrates nothing.
	path := filepath.Join(dir, archive.DBFile)
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		d.add("FAIL", "store: "+err.Error(), "check the file's owner and mode")
		return
	}
	defer db.Close()
	var v int
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		d.add("FAIL", fmt.Sprintf("store %s: %v", path, err), "restore a backup (pbem restore FILE)")
		return
	}
	switch latest := archive.SchemaVersion(); {
	case v > latest:
		d.add("FAIL", fmt.Sprintf("store %s has schema version %d, newer than this pbem's %d", path, v, latest), "run the pbem that wrote it, or a newer one")
	case v < latest:
		d.add("ok", fmt.Sprintf("store %s: schema version %d, migrated to %d at the next start", path, v, latest), "take a backup first (pbem backup FILE)")
	default:
		d.add("ok", fmt.Sprintf("store %s: schema version %d", path, v), "")
	}
}

func mib(n uint64) string { return fmt.Sprintf("%d MiB", n>>20) }

// checkClock reports whether the system clock is kept in step.
func (d *doctor) checkClock() {
	synced, known := clockSynced()
	switch {
	case !known:
		d.add("skip", "whether the clock is synchronised could not be told here", "run an NTP client (systemd-timesyncd, chrony): deadlines are kept by this clock")
	case synced:
		d.add("ok", "the system clock is synchronised", "")
	default:
		d.add("warn", "the system clock is not synchronised", "enable an NTP client (timedatectl set-ntp true): deadlines and reminders follow this clock")
	}
}

// checkDNS checks the referee domain's MX, SPF and DMARC records, where
// DNS can be reached.
func (d *doctor) checkDNS(ctx context.Context) {
	domain := strings.ToLower(domainOf(d.cfg.Referee.Address))
	if domain == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	unreachable := func(err error) bool {
		var de *net.DNSError
		return !errors.As(err, &de) || !de.IsNotFound
	}
	// A resolver that reaches public DNS knows the top-level domain's
	// servers; one that answers "no such host" to everything (a machine
	// without internet) does not, and its other answers mean nothing.
	tld := domain[strings.LastIndex(domain, ".")+1:]
	if _, err := d.resolver.LookupNS(ctx, tld+"."); err != nil {
		d.add("skip", fmt.Sprintf("could not reach DNS (no servers found for the top-level domain %s: %v): MX, SPF and DMARC of %s not checked", tld, err, domain),
			"run pbem doctor where public DNS answers to check them")
		return
	}
	mxs, err := d.resolver.LookupMX(ctx, domain)
	if err != nil && unreachable(err) {
		d.add("skip", fmt.Sprintf("could not reach DNS (%v): MX, SPF and DMARC of %s not checked", err, domain), "run pbem doctor where DNS answers to check them")
		return
	}
	if len(mxs) == 0 {
		d.add("FAIL", "no MX record for "+domain+": mail to the referee cannot arrive", "add an MX record for "+domain+" pointing at the mail server")
	} else {
		var hosts []string
		for _, mx := range mxs {
			hosts = append(hosts, strings.TrimSuffix(mx.Host, "."))
		}
		d.add("ok", fmt.Sprintf("MX of %s: %s", domain, strings.Join(hosts, ", ")), "")
	}
	txt := func(name, prefix string) (string, error) {
		recs, err := d.resolver.LookupTXT(ctx, name)
		if err != nil && unreachable(err) {
			return "", err
		}
		for _, r := range recs {
			if strings.HasPrefix(strings.ToLower(r), prefix) {
				return r, nil
			}
		}
		return "", nil
	}
	if spf, err := txt(domain, "v=spf1"); err != nil {
		d.add("skip", fmt.Sprintf("SPF of %s: could not reach DNS (%v)", domain, err), "")
	} else if spf == "" {
		d.add("warn", "no SPF record for "+domain+": receivers may take the referee's mail for spam", "publish a TXT record \"v=spf1 ...\" naming the servers that send for "+domain)
	} else {
		d.add("ok", fmt.Sprintf("SPF of %s: %s", domain, spf), "")
	}
	if dmarc, err := txt("_dmarc."+domain, "v=dmarc1"); err != nil {
		d.add("skip", fmt.Sprintf("DMARC of %s: could not reach DNS (%v)", domain, err), "")
	} else if dmarc == "" {
		d.add("warn", "no DMARC record for "+domain, "publish a TXT record at _dmarc."+domain+", e.g. \"v=DMARC1; p=none; rua=mailto:postmaster@"+domain+"\"")
	} else {
		d.add("ok", fmt.Sprintf("DMARC of %s: %s", domain, dmarc), "")
	}
}
