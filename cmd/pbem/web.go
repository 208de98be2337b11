package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"pbem/archive"
	"sync"
	"time"

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
func (s *server) startWeb(ctx context.Context, wg *sync.WaitGroup) error {
	if s.cfg.Web.Addr == "" {
		return nil
	}
	poller := web.NewPoller(s.store, time.Second, s.log)
	h, err := web.New(s.store, &web.Options{Lookup: referee.Lookup, Games: catalogIDs(), Notifier: poller, Logger: s.log, Private: privateGame, Tournaments: webTournaments(s.store)})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", s.cfg.Web.Addr)
	if err != nil {
		return fmt.Errorf("web pages: %w (choose another web.addr)", err)
	}
	base := s.cfg.Web.BaseURL
	if base == "" {
		base = "http://" + ln.Addr().String()
	}
	fmt.Fprintf(s.out, "pbem serve: web pages %s/\n", base)
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	// Event streams stay open: shut them down with the context.
	hs.BaseContext = func(net.Listener) context.Context { return ctx }
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

// privateGame hides the games their players marked private (new ...
// private) from every page and list.
func privateGame(g *archive.Game) bool { return g.Options.Private }
