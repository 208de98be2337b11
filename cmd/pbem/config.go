package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"reflect"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"pbem/archive"
)

// Config is the `pbem serve` configuration file (YAML). Passwords come from
// the environment (PBEM_IMAP_PASSWORD, PBEM_SMTP_PASSWORD) unless the file
// names other variables. Without a file, serve runs on embedded servers.
type Config struct {
	// DataDir holds the SQLite store (default ./pbem-data), and the
	// embedded mail servers' mail and the SMTP sender's log whatever the
	// store.
	DataDir string `yaml:"data_dir"`
	// Referee is the referee's own mailbox address (plus-addressing must
	// reach it: referee+12.k7x9q@host) and display name.
	Referee struct {
		Address string `yaml:"address"`
		Name    string `yaml:"name"`
		// RateLimit is how many messages without a game's token one
		// sender may send per RateWindow (default 30 an hour);
		// RateLimitTotal bounds them from all senders together (default
		// 600). Mail carrying a player's valid token is never limited.
		RateLimit      int           `yaml:"rate_limit"`
		RateLimitTotal int           `yaml:"rate_limit_total"`
		RateWindow     time.Duration `yaml:"rate_window"`
		// BotGames is how many invited or playing games with the
		// computer player one address may have started (default 5);
		// BotGamesTotal bounds them from all addresses (default 200).
		BotGames      int `yaml:"bot_games"`
		BotGamesTotal int `yaml:"bot_games_total"`
		// TextMail sends every mail as plain text only, whatever the
		// players chose; by default each has an HTML part too, the board
		// as a picture.
		TextMail bool `yaml:"text_mail"`
	} `yaml:"referee"`
	IMAP struct {
		Addr         string        `yaml:"addr"`     // host:port
		Security     string        `yaml:"security"` // tls, starttls or plain (loopback only)
		Username     string        `yaml:"username"`
		PasswordEnv  string        `yaml:"password_env"`
		Mailbox      string        `yaml:"mailbox"`
		Processed    string        `yaml:"processed"`
		Rejected     string        `yaml:"rejected"`
		PollInterval time.Duration `yaml:"poll_interval"`
		// Batch is the most messages fetched, decided and committed
		// together, in one transaction (default 100).
		Batch int `yaml:"batch"`
		// TrustedAuthservID is the authserv-id the receiving server
		// writes in Authentication-Results (RFC 8601), or "(none)" for
		// fields without one (Microsoft 365). When set, mail whose From
		// it found forged is never read nor answered; Unauthenticated
		// (answer or ignore, default answer) says what becomes of mail
		// it gave no verdict on.
		TrustedAuthservID string `yaml:"trusted_authserv_id"`
		Unauthenticated   string `yaml:"unauthenticated"`
	} `yaml:"imap"`
	SMTP struct {
		Addr        string `yaml:"addr"`
		Security    string `yaml:"security"`
		Username    string `yaml:"username"`
		PasswordEnv string `yaml:"password_env"`
		Helo        string `yaml:"helo"`
		// RetryMin and RetryMax bound the wait before a reply the server
		// did not take is tried again: RetryMin, doubling up to RetryMax.
		RetryMin time.Duration `yaml:"retry_min"`
		RetryMax time.Duration `yaml:"retry_max"`
		// Connections is how many SMTP connections deliver replies in
		// parallel (default 8); the replies to one recipient keep their
		// order over one of them.
		Connections int `yaml:"connections"`
		// Copies (on, the default, or off): every reply also goes, in the
		// same SMTP transaction, to CopyTo (default the referee's address
		// with +sent), so that after a crash the referee finds in its
		// own mailbox which replies the server took, waiting up to
		// CopyWait (default 30s) for copies on their way, and sends
		// none of them twice. The copies are expunged once settled.
		Copies   string        `yaml:"copies"`
		CopyTo   string        `yaml:"copy_to"`
		CopyWait time.Duration `yaml:"copy_wait"`
	} `yaml:"smtp"`
	// HTTP is the loopback address of /healthz and /metrics.
	HTTP struct {
		Addr string `yaml:"addr"`
	} `yaml:"http"`
	// Web is the address of the public, read-only web pages ("": none)
	// and the base URL they are reached at, for links in mail.
	Web struct {
		Addr    string `yaml:"addr"`
		BaseURL string `yaml:"base_url"`
	} `yaml:"web"`
	Log struct {
		Level  string `yaml:"level"`  // debug, info, warn, error
		Format string `yaml:"format"` // text or json
	} `yaml:"log"`
	// TickInterval is how often clocks (reminders, time forfeits) are checked.
	TickInterval time.Duration `yaml:"tick_interval"`
	// Admins are the addresses whose "admin ..." mail the referee reads;
	// each command is carried out once its admin answers the token mailed
	// to that address.
	Admins []string `yaml:"admins"`
	// Store is where the referee's store is: empty for SQLite in DataDir
	// (the default), or a postgres:// (postgresql://) URL for a
	// PostgreSQL database. Its password may be left out of the file: pgx
	// reads PGPASSWORD and ~/.pgpass as libpq does.
	Store string `yaml:"store"`
}

// Defaults of imap.batch and smtp.connections.
const (
	defaultIMAPBatch       = 100
	defaultSMTPConnections = 8
)

// exampleConfig is documented in docs/OPERATING.md; TestExampleConfig keeps the
// two in step.
const exampleConfig = `# pbem serve --config pbem.yaml
data_dir: /var/lib/pbem
# store: postgres://pbem@db.example.org/pbem   # PostgreSQL instead of SQLite in data_dir (below)
referee:
  address: referee@example.org   # plus-addresses (referee+...) must reach it
  name: pbem referee
  rate_limit: 30                 # mails without a game's token, per sender and window
  rate_limit_total: 600          # the same from all senders together
  rate_window: 1h
  bot_games: 5                   # games with the computer player one address may start
  bot_games_total: 200           # the same from all addresses together
  text_mail: false               # true: plain-text mail only (default: text and HTML)
imap:
  addr: imap.example.org:993
  security: tls                  # tls, starttls, or plain (loopback only)
  username: referee@example.org
  password_env: PBEM_IMAP_PASSWORD
  poll_interval: 60s             # fallback poll; IDLE is used when offered
  batch: 100                     # messages fetched and committed together
  trusted_authserv_id: mx.example.org  # who writes Authentication-Results (below; omit: none read)
  unauthenticated: answer        # mail it gave no verdict on: answer (default) or ignore
smtp:
  addr: smtp.example.org:587
  security: starttls
  username: referee@example.org
  password_env: PBEM_SMTP_PASSWORD
  connections: 8                 # replies sent in parallel (one recipient's in order)
  copies: on                     # each reply also to referee+sent@: none sent twice after a crash
  copy_wait: 30s                 # how long a restart waits for a copy still on its way
http:
  addr: 127.0.0.1:8025           # /healthz and /metrics
web:
  addr: 127.0.0.1:8026           # the read-only game pages (omit: none)
  base_url: https://pbem.example.org   # their public address, linked in mails
log:
  level: info
  format: text
tick_interval: 1m
admins:                          # may send "admin ..." commands by mail (each confirmed by a token)
  - operator@example.org
`

// loadConfig reads and checks a configuration file.
func loadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c Config
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: %v", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(root.Content) > 0 {
		// Check every key and value against Config first, so that a typo
		// is reported by its line and name, never as a Go type.
		if errs := checkNode(path, root.Content[0], reflect.TypeFor[Config](), ""); len(errs) > 0 {
			return nil, errors.Join(errs...)
		}
		if err := root.Content[0].Decode(&c); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	c.defaults()
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &c, nil
}

// storeAddress is where the store is, for archive.OpenStore: the
// PostgreSQL URL of store, else the data directory (SQLite).
func (c *Config) storeAddress() string {
	if c.Store != "" {
		return c.Store
	}
	return c.DataDir
}

// postgres reports whether the store is PostgreSQL.
func (c *Config) postgres() bool { return archive.IsPostgresURL(c.Store) }

func (c *Config) defaults() {
	if c.DataDir == "" {
		c.DataDir = "./pbem-data"
	}
	if c.Referee.Name == "" {
		c.Referee.Name = "pbem referee"
	}
	if c.IMAP.Security == "" {
		c.IMAP.Security = "tls"
	}
	if c.IMAP.PasswordEnv == "" {
		c.IMAP.PasswordEnv = "PBEM_IMAP_PASSWORD"
	}
	if c.IMAP.Username == "" {
		c.IMAP.Username = c.Referee.Address
	}
	if c.IMAP.PollInterval == 0 {
		c.IMAP.PollInterval = 60 * time.Second
	}
	if c.SMTP.Security == "" {
		c.SMTP.Security = "starttls"
	}
	if c.SMTP.Connections == 0 {
		c.SMTP.Connections = defaultSMTPConnections
	}
	if c.IMAP.Batch == 0 {
		c.IMAP.Batch = defaultIMAPBatch
	}
	if c.SMTP.Copies == "" {
		c.SMTP.Copies = "on"
	}
	if c.SMTP.CopyWait == 0 {
		c.SMTP.CopyWait = 30 * time.Second
	}
	if c.IMAP.Unauthenticated == "" {
		c.IMAP.Unauthenticated = "answer"
	}
	if c.SMTP.PasswordEnv == "" {
		c.SMTP.PasswordEnv = "PBEM_SMTP_PASSWORD"
	}
	if c.HTTP.Addr == "" {
		c.HTTP.Addr = "127.0.0.1:8025"
	}
	if c.Log.Level == "" {
		c.Log.Level = "info"
	}
	if c.Log.Format == "" {
		c.Log.Format = "text"
	}
	if c.TickInterval == 0 {
		c.TickInterval = time.Minute
	}
}

// durationRanges bound every duration of the configuration: a value outside
// its range is refused (a negative interval panics a ticker; a nanosecond
// busy-loops).
var durationRanges = map[string][2]time.Duration{
	"imap.poll_interval":  {5 * time.Second, 24 * time.Hour},
	"tick_interval":       {time.Second, time.Hour},
	"referee.rate_window": {time.Minute, 24 * time.Hour},
	"smtp.retry_min":      {100 * time.Millisecond, time.Hour},
	"smtp.retry_max":      {time.Second, 24 * time.Hour},
	"smtp.copy_wait":      {time.Second, time.Hour},
}

// checkNode checks a YAML mapping against the struct type t: every key must
// name a field (else FILE:LINE: unknown key, with the keys expected) and
// every value must have the field's type (a duration such as 30s, a
// number, yes/no, text).
func checkNode(file string, n *yaml.Node, t reflect.Type, prefix string) []error {
	if n.Kind != yaml.MappingNode {
		what := "the configuration"
		if prefix != "" {
			what = strings.TrimSuffix(prefix, ".")
		}
		return []error{fmt.Errorf("%s:%d: %s: expected keys and values (key: value, one per line)", file, n.Line, what)}
	}
	fields := map[string]reflect.StructField{}
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		fields[name] = f
		names = append(names, name)
	}
	var errs []error
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := prefix + k.Value
		f, ok := fields[k.Value]
		if !ok {
			hint := ""
			if near := nearest(k.Value, names); near != "" {
				hint = fmt.Sprintf(" (did you mean %s%s?)", prefix, near)
			}
			where := "at the top level"
			if prefix != "" {
				where = "in " + strings.TrimSuffix(prefix, ".")
			}
			errs = append(errs, fmt.Errorf("%s:%d: unknown key %s%s; expected %s one of %s", file, k.Line, key, hint, where, strings.Join(names, ", ")))
			continue
		}
		ft := f.Type
		switch {
		case ft.Kind() == reflect.Struct:
			errs = append(errs, checkNode(file, v, ft, key+".")...)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String:
			if v.Kind != yaml.SequenceNode {
				errs = append(errs, fmt.Errorf("%s:%d: %s: expected a list, one item a line (- item)", file, v.Line, key))
				continue
			}
			for _, item := range v.Content {
				if item.Kind != yaml.ScalarNode {
					errs = append(errs, fmt.Errorf("%s:%d: %s: expected a list of single values", file, item.Line, key))
				}
			}
		case v.Kind != yaml.ScalarNode:
			errs = append(errs, fmt.Errorf("%s:%d: %s: expected a single value, not a list or mapping", file, v.Line, key))
		case ft == reflect.TypeFor[time.Duration]():
			d, err := time.ParseDuration(v.Value)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s:%d: %s: %q is not a duration; expected a number and a unit, such as 30s, 5m or 1h", file, v.Line, key, v.Value))
				continue
			}
			if r, ok := durationRanges[key]; ok && (d < r[0] || d > r[1]) {
				errs = append(errs, fmt.Errorf("%s:%d: %s: %s is out of range; expected %s to %s", file, v.Line, key, v.Value, r[0], r[1]))
			}
		default:
			if err := v.Decode(reflect.New(ft).Interface()); err != nil {
				want := map[reflect.Kind]string{reflect.Int: "a whole number", reflect.Bool: "yes or no", reflect.String: "text"}[ft.Kind()]
				errs = append(errs, fmt.Errorf("%s:%d: %s: %q is not %s", file, v.Line, key, v.Value, want))
			}
		}
	}
	return errs
}

// nearest returns the name closest to s (at most two edits away), or "".
func nearest(s string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := editDistance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// checkSecrets reports the password variables that are named but unset:
// serve stops at start rather than fail to log in later.
func (c *Config) checkSecrets(getenv func(string) string) error {
	var errs []error
	for _, s := range []struct{ key, env, user string }{
		{"imap.password_env", c.IMAP.PasswordEnv, c.IMAP.Username},
		{"smtp.password_env", c.SMTP.PasswordEnv, c.SMTP.Username},
	} {
		if s.user != "" && getenv(s.env) == "" {
			errs = append(errs, fmt.Errorf("%s: the environment variable %s is not set; expected the password of %s in it", s.key, s.env, s.user))
		}
	}
	return errors.Join(errs...)
}

// publicHTTP reports whether the health and metrics address listens beyond
// loopback.
func publicHTTP(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return true
	}
	if host == "localhost" {
		return false
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}

func (c *Config) check() error {
	var errs []error
	if c.Store != "" && !archive.IsPostgresURL(c.Store) {
		errs = append(errs, fmt.Errorf("store %q: expected a postgres://USER@HOST/DATABASE URL (PostgreSQL), or no store: SQLite in data_dir", c.Store))
	}
	for _, l := range []struct {
		key string
		v   int
	}{{"referee.rate_limit", c.Referee.RateLimit}, {"referee.rate_limit_total", c.Referee.RateLimitTotal}} {
		if l.v < 0 || l.v > 1_000_000 {
			errs = append(errs, fmt.Errorf("%s %d: expected a number of messages from 1 to 1000000 (0 or none: the default)", l.key, l.v))
		}
	}
	for _, l := range []struct {
		key string
		v   int
	}{{"referee.bot_games", c.Referee.BotGames}, {"referee.bot_games_total", c.Referee.BotGamesTotal}} {
		if l.v < 0 || l.v > 100_000 {
			errs = append(errs, fmt.Errorf("%s %d: expected a number of games from 1 to 100000 (0 or none: the default)", l.key, l.v))
		}
	}
	if c.SMTP.Connections < 1 || c.SMTP.Connections > 64 {
		errs = append(errs, fmt.Errorf("smtp.connections %d: expected 1 to 64 connections", c.SMTP.Connections))
	}
	if c.IMAP.Batch < 1 || c.IMAP.Batch > 1000 {
		errs = append(errs, fmt.Errorf("imap.batch %d: expected 1 to 1000 messages", c.IMAP.Batch))
	}
	switch c.SMTP.Copies {
	case "on", "off":
	default:
		errs = append(errs, fmt.Errorf("smtp.copies %q: expected on or off", c.SMTP.Copies))
	}
	if c.SMTP.CopyTo != "" && !strings.Contains(c.SMTP.CopyTo, "@") {
		errs = append(errs, fmt.Errorf("smtp.copy_to %q: expected an address of the referee's own mailbox, such as referee+sent@example.org", c.SMTP.CopyTo))
	}
	switch c.IMAP.Unauthenticated {
	case "answer", "ignore":
	default:
		errs = append(errs, fmt.Errorf("imap.unauthenticated %q: expected answer or ignore", c.IMAP.Unauthenticated))
	}
	if strings.ContainsAny(c.IMAP.TrustedAuthservID, " ;\t") {
		errs = append(errs, fmt.Errorf("imap.trusted_authserv_id %q: expected one name, such as mx.example.org, as the mail server writes it first in Authentication-Results", c.IMAP.TrustedAuthservID))
	}
	for _, a := range c.Admins {
		if _, err := archive.BlockPattern(a); err != nil || strings.HasPrefix(a, "@") {
			errs = append(errs, fmt.Errorf("admins: %q: expected an address, such as operator@example.org", a))
		}
	}
	if !strings.Contains(c.Referee.Address, "@") {
		errs = append(errs, fmt.Errorf("referee.address %q: expected the referee's mail address, such as referee@example.org", c.Referee.Address))
	}
	if c.IMAP.Addr == "" {
		errs = append(errs, errors.New("imap.addr is missing: expected host:port, such as imap.example.org:993"))
	}
	if c.SMTP.Addr == "" {
		errs = append(errs, errors.New("smtp.addr is missing: expected host:port, such as smtp.example.org:587"))
	}
	for _, s := range []struct{ name, v string }{{"imap.security", c.IMAP.Security}, {"smtp.security", c.SMTP.Security}} {
		switch s.v {
		case "tls", "starttls", "plain":
		default:
			errs = append(errs, fmt.Errorf("%s %q: expected tls, starttls or plain", s.name, s.v))
		}
	}
	switch c.Log.Format {
	case "text", "json":
	default:
		errs = append(errs, fmt.Errorf("log.format %q: expected text or json", c.Log.Format))
	}
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("log.level %q: expected debug, info, warn or error", c.Log.Level))
	}
	return errors.Join(errs...)
}
