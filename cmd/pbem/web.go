package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"pbem/archive"
	"sync"
	"time"

	"golang.org/x/net/netutil"

	"pbem/archive/web"
	"pbem/referee"
)

// catalogIDs lists the game ids of the referee's catalog.
func catalogIDs() []string {
	var ids []string
	for _, c := range referee.Games() {
		ids = append(ids, c.Rules().ID())
	}
	return ids
}

// startWeb serves the public web pages on web.addr (nothing when it is
// empty) until ctx ends: the pages read the store, and a poller of the
// store tells open pages of every move within about a second, whoever
// wrote it. It returns once the address listens.
//
// The web's connections and live-update streams are bounded by the
// process's file limit, leaving a reserve to the mail (webLimits); a
// connection beyond the bound waits to be accepted.
func (s *server) startWeb(ctx context.Context, wg *sync.WaitGroup) error {
	if s.cfg.Web.Addr == "" {
		return nil
	}
	conns, streams := webLimits(fileLimit())
	poller := web.NewPoller(s.store, time.Second, s.log)
	h, err := web.New(s.store, &web.Options{Lookup: referee.Lookup, Games: catalogIDs(), Notifier: poller, Logger: s.log, Private: privateGame, Tournaments: webTournaments(s.store),
		Player:     webPlayer{s},
		BaseURL:    s.cfg.Web.BaseURL,
		MaxStreams: streams})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", s.cfg.Web.Addr)
	if err != nil {
		return fmt.Errorf("web pages: %w (choose another web.addr)", err)
	}
	ln = netutil.LimitListener(ln, conns)
	base := s.cfg.Web.BaseURL
	if base == "" {
		base = "http://" + ln.Addr().String()
	}
	fmt.Fprintf(s.out, "pbem serve: web pages %s/\n", base)
	hs := webServer(ctx, h)
	wg.Go(func() { poller.Run(ctx) })
	wg.Go(func() { hs.Serve(ln) })
	wg.Go(func() {
		<-ctx.Done()
		sc, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sc)
	})
	return nil
}

// webServer is the web pages' server: every phase of a request is timed
// out (a live-update stream moves its write deadline at each write, up to
// its lifetime), and a request's head is at most 64 kB (its address at
// most web.MaxURL, which the pages answer with 414 and a message). Event
// streams stay open: they end with ctx.
func webServer(ctx context.Context, h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      time.Minute,
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
}

// Bounds of the web's descriptors.
const (
	// mailReserve is the least number of descriptors the web leaves to
	// the rest of the process (mail connections, the store, logs): a
	// quarter of the limit, at least this.
	mailReserve = 256
	// maxWebConns bounds the web's connections however high the limit.
	maxWebConns = 4096
)

// webLimits derives from the process's file limit (RLIMIT_NOFILE) the
// most connections the web keeps open, at most maxWebConns and leaving
// the reserve, and the most live-update streams, half of them (a page that
// streams also loads itself).
func webLimits(nofile uint64) (conns, streams int) {
	reserve := max(mailReserve, nofile/4)
	avail := nofile / 4 // a small limit: the web takes a quarter
	if nofile > 2*reserve {
		avail = nofile - reserve
	}
	conns = int(min(max(avail, 8), maxWebConns))
	return conns, conns / 2
}

// privateGame hides the games their players marked private (new ...
// private) from every page and list.
func privateGame(g *archive.Game) bool { return g.Options.Private }
