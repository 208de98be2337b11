package main

import (
	"context"
	"testing"
	"time"
)

// TestWebServerTimeouts: the web's server times out every phase of a
// request and bounds a request's head.
func TestWebServerTimeouts(t *testing.T) {
	hs := webServer(context.Background(), nil)
	for name, got := range map[string]time.Duration{
		"ReadHeaderTimeout": hs.ReadHeaderTimeout,
		"ReadTimeout":       hs.ReadTimeout,
		"WriteTimeout":      hs.WriteTimeout,
		"IdleTimeout":       hs.IdleTimeout,
	} {
		if got <= 0 || got > time.Minute {
			t.Errorf("%s = %v, want a bound of at most a minute", name, got)
		}
	}
	if hs.MaxHeaderBytes <= 0 || hs.MaxHeaderBytes > 64<<10 {
		t.Errorf("MaxHeaderBytes = %d, want at most 64 kB", hs.MaxHeaderBytes)
	}
	if hs.BaseContext == nil {
		t.Error("no BaseContext: event streams would outlive the server's context")
	}
}

// TestWebLimits derives the web's connections and streams from the file
// limit, leaving the mail a reserve of a quarter, at least 256.
func TestWebLimits(t *testing.T) {
	for _, tc := range []struct {
		nofile         uint64
		conns, streams int
	}{
		{1024, 768, 384},
		{4096, 3072, 1536},
		{1 << 20, 4096, 2048},
		{256, 64, 32},
		{16, 8, 4},
	} {
		conns, streams := webLimits(tc.nofile)
		if conns != tc.conns || streams != tc.streams {
			t.Errorf("webLimits(%d) = %d, %d; want %d, %d", tc.nofile, conns, streams, tc.conns, tc.streams)
		}
		if reserve := int(tc.nofile) - conns; tc.nofile >= 1024 && reserve < 256 {
			t.Errorf("webLimits(%d) leaves %d descriptors", tc.nofile, reserve)
		}
	}
	if n := fileLimit(); n == 0 {
		t.Error("fileLimit() = 0")
	}
}
