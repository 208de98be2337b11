package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExampleConfig(t *testing.T) {
	f := filepath.Join(t.TempDir(), "pbem.yaml")
	require.NoError(t, os.WriteFile(f, []byte(exampleConfig), 0o600))
	c, err := loadConfig(f)
	require.NoError(t, err)
	assert.Equal(t, "imap.example.org:993", c.IMAP.Addr)
	assert.Equal(t, 60*time.Second, c.IMAP.PollInterval)
	assert.Equal(t, "PBEM_SMTP_PASSWORD", c.SMTP.PasswordEnv)
	doc, err := os.ReadFile("../../docs/OPERATING.md")
	require.NoError(t, err)
	assert.Contains(t, string(doc), exampleConfig, "docs/OPERATING.md shows the example configuration")
}

// TestReadmeConfig: the README's minimal configuration for a real mailbox
// loads, and names the settings it promises.
func TestReadmeConfig(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(readme), "```yaml\n")
	require.True(t, ok, "the README has a yaml block")
	yaml, _, ok := strings.Cut(rest, "```")
	require.True(t, ok)
	f := filepath.Join(t.TempDir(), "pbem.yaml")
	require.NoError(t, os.WriteFile(f, []byte(yaml), 0o600))
	c, err := loadConfig(f)
	require.NoError(t, err)
	assert.Equal(t, "referee@example.org", c.Referee.Address)
	assert.Equal(t, "imap.example.org:993", c.IMAP.Addr)
	assert.Equal(t, "smtp.example.org:587", c.SMTP.Addr)
	assert.Equal(t, "https://pbem.example.org", c.Web.BaseURL)
}

func TestBadConfig(t *testing.T) {
	f := filepath.Join(t.TempDir(), "pbem.yaml")
	require.NoError(t, os.WriteFile(f, []byte("referee:\n  address: nobody\nimap:\n  security: ssl\nlog:\n  format: xml\n"), 0o600))
	_, err := loadConfig(f)
	require.Error(t, err)
	for _, want := range []string{
		`referee.address "nobody": expected the referee's mail address`,
		"imap.addr is missing",
		"smtp.addr is missing",
		`imap.security "ssl": expected tls, starttls or plain`,
		`log.format "xml": expected text or json`,
	} {
		assert.Contains(t, err.Error(), want)
	}
	require.NoError(t, os.WriteFile(f, []byte("data_dri: x\n"), 0o600))
	_, err = loadConfig(f)
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "data_dri"), err.Error())
}

// TestConfigMistakes: a typo is named by its key and line, with the keys
// expected, never as a Go type; durations are checked for form and range.
func TestConfigMistakes(t *testing.T) {
	f := filepath.Join(t.TempDir(), "pbem.yaml")
	for _, c := range []struct{ yaml, want string }{
		{"referee:\n  address: r@x.org\nimap:\n  addr: a:1\n  pol_interval: 5s\n",
			f + ":5: unknown key imap.pol_interval (did you mean imap.poll_interval?); expected in imap one of addr, security, username, password_env, mailbox, processed, rejected, poll_interval"},
		{"data_dri: x\n", f + ":1: unknown key data_dri (did you mean data_dir?); expected at the top level one of data_dir, referee"},
		{"tick_interval: 5 minutes\n", f + `:1: tick_interval: "5 minutes" is not a duration; expected a number and a unit, such as 30s, 5m or 1h`},
		{"tick_interval: -1s\n", f + ":1: tick_interval: -1s is out of range; expected 1s to 1h0m0s"},
		{"tick_interval: 1ns\n", f + ":1: tick_interval: 1ns is out of range; expected 1s to 1h0m0s"},
		{"imap:\n  poll_interval: 100ms\n", f + ":2: imap.poll_interval: 100ms is out of range; expected 5s to 24h0m0s"},
		{"imap: tls\n", f + ":1: imap: expected keys and values (key: value, one per line)"},
		{"http:\n  addr: [1, 2]\n", f + ":2: http.addr: expected a single value, not a list or mapping"},
		{"referee: [\n", f + ": "},
	} {
		require.NoError(t, os.WriteFile(f, []byte(c.yaml), 0o600))
		_, err := loadConfig(f)
		require.Error(t, err, c.yaml)
		assert.Contains(t, err.Error(), c.want, c.yaml)
		assert.NotContains(t, err.Error(), "struct {", "no Go type in the message")
		assert.NotContains(t, err.Error(), "time.Duration")
	}
}

func TestConfigSecretsAndPublicHTTP(t *testing.T) {
	f := filepath.Join(t.TempDir(), "pbem.yaml")
	require.NoError(t, os.WriteFile(f, []byte(exampleConfig), 0o600))
	c, err := loadConfig(f)
	require.NoError(t, err)
	env := map[string]string{"PBEM_SMTP_PASSWORD": "x"}
	err = c.checkSecrets(func(k string) string { return env[k] })
	require.Error(t, err)
	assert.Equal(t, "imap.password_env: the environment variable PBEM_IMAP_PASSWORD is not set; expected the password of referee@example.org in it", err.Error())
	env["PBEM_IMAP_PASSWORD"] = "y"
	assert.NoError(t, c.checkSecrets(func(k string) string { return env[k] }))

	for addr, public := range map[string]bool{"127.0.0.1:8025": false, "[::1]:80": false, "localhost:1": false,
		":8025": true, "0.0.0.0:8025": true, "192.0.2.1:8025": true} {
		assert.Equal(t, public, publicHTTP(addr), addr)
	}
}
