package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Bounds of pbem serve's stop (SIGTERM, SIGINT): the message in hand is
// finished within inHandBound, and what is queued is sent within
// drainBound; then the process ends whatever is left (it is sent after the
// next start, and a message not committed is read again).
const (
	inHandBound = 30 * time.Second
	drainBound  = 15 * time.Second
)

// logLevels are the values of log.level.
var logLevels = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}

// inHand is the context of the message in hand: the stop of the server
// does not cancel it, its bound does.
func inHand(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), inHandBound)
}

// drain sends what the outbox holds due, within drainBound, once the
// poller, the clock and the bots have stopped.
func (s *server) drain() {
	if s.sender == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), drainBound)
	defer cancel()
	if _, err := s.sender.SendDue(ctx); err != nil {
		s.log.Warn("stopping: the outbox was not drained; the rest is sent after the next start", "err", err)
		return
	}
	if n, err := s.store.Pending(ctx); err == nil && n > 0 {
		s.log.Info("stopping: replies left in the outbox are sent after the next start", "pending", n)
	}
}

// hangups delivers SIGHUP on the channel it returns (signal.Stop it).
func hangups() chan os.Signal {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	return hup
}

// reloads reloads the configuration on every SIGHUP (s.hup) until ctx ends.
func (s *server) reloads(ctx context.Context) {
	if s.hup == nil {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.hup:
			s.reload()
		}
	}
}

// reload reads the configuration file again. The admins and log.level
// take effect at once, the other settings at the next start; a file that does not load
// changes nothing. Either way the sender looks at the outbox (pbem admin
// queues mail from another process).
func (s *server) reload() {
	defer s.sender.Wake()
	if s.configPath == "" {
		s.log.Info("SIGHUP: no configuration file to reload; the outbox is looked at")
		return
	}
	cfg, err := loadConfig(s.configPath)
	if err != nil {
		s.log.Error("SIGHUP: configuration not reloaded, the running one stays", "err", err)
		return
	}
	s.ref.SetAdmins(cfg.Admins)
	s.level.Set(logLevels[cfg.Log.Level])
	s.log.Info("SIGHUP: configuration reloaded: admins and log.level now in effect; other settings take effect at the next start",
		"admins", cfg.Admins, "log.level", cfg.Log.Level)
}
