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
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	assert.Contains(t, string(readme), exampleConfig, "the README shows the example configuration")
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
