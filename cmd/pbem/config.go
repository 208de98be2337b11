package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Config is the `pbem serve` configuration file (YAML). Passwords come from
// the environment (PBEM_IMAP_PASSWORD, PBEM_SMTP_PASSWORD) unless the file
// names other variables. Without a file, serve runs on embedded servers.
type Config struct {
	// DataDir holds the SQLite store (default ./pbem-data).
	DataDir string `yaml:"data_dir"`
	// Referee is the referee's own mailbox address (plus-addressing must
	// reach it: referee+12.k7x9q@host) and display name.
	Referee struct {
		Address string `yaml:"address"`
		Name    string `yaml:"name"`
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
	} `yaml:"imap"`
	SMTP struct {
		Addr        string `yaml:"addr"`
		Security    string `yaml:"security"`
		Username    string `yaml:"username"`
		PasswordEnv string `yaml:"password_env"`
		Helo        string `yaml:"helo"`
	} `yaml:"smtp"`
	// HTTP is the loopback address of /healthz and /metrics.
	HTTP struct {
		Addr string `yaml:"addr"`
	} `yaml:"http"`
	Log struct {
		Level  string `yaml:"level"`  // debug, info, warn, error
		Format string `yaml:"format"` // text or json
	} `yaml:"log"`
	// TickInterval is how often clocks (reminders, time forfeits) are checked.
	TickInterval time.Duration `yaml:"tick_interval"`
}

// exampleConfig is documented in the README; TestExampleConfig keeps the
// two in step.
const exampleConfig = `# pbem serve --config pbem.yaml
data_dir: /var/lib/pbem
referee:
  address: referee@example.org   # plus-addresses (referee+...) must reach it
  name: pbem referee
imap:
  addr: imap.example.org:993
  security: tls                  # tls, starttls, or plain (loopback only)
  username: referee@example.org
  password_env: PBEM_IMAP_PASSWORD
  poll_interval: 60s             # fallback poll; IDLE is used when offered
smtp:
  addr: smtp.example.org:587
  security: starttls
  username: referee@example.org
  password_env: PBEM_SMTP_PASSWORD
http:
  addr: 127.0.0.1:8025           # /healthz and /metrics
log:
  level: info
  format: text
tick_interval: 1m
`

// loadConfig reads and checks a configuration file.
func loadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c Config
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.defaults()
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &c, nil
}

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

func (c *Config) check() error {
	var errs []error
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
