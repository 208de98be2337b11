package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"pbem/archive"
	"pbem/archive/web"
	"pbem/referee"
)

// siteCommand is the entry of pbem archive site in the subcommand list
// (runArchive dispatches it before the shared flags: its --event and
// --game repeat).
var siteCommand = archiveCommand{"site", "DIR [--event E] [--game G] [--plies]",
	"write the web pages of the archive and of the games being played as a static site in DIR (relative links, no server)", nil}

// runArchiveSite is `pbem archive site DIR [--event E] [--game G] ...`.
func runArchiveSite(c *cli, args []string) int {
	fs := flag.NewFlagSet("pbem archive site", flag.ContinueOnError)
	data := fs.String("data", archive.DefaultDir, "the data directory `DIR` holding the archive (the referee's store)")
	var o web.SiteOptions
	fs.Func("event", "only the games of the event `E` (the Event tag, any case); repeat for more", func(v string) error {
		o.Events = append(o.Events, v)
		return nil
	})
	fs.Func("game", "only the games of the game `G` (a game id, see pbem games); repeat for more", func(v string) error {
		if _, err := referee.Lookup(v); err != nil {
			return err
		}
		o.Games = append(o.Games, v)
		return nil
	})
	fs.BoolVar(&o.Plies, "plies", false, "write a page per ply of every game, as the server shows them (many more files)")
	title := fs.String("title", "pbem", "the site's `TITLE`")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: pbem archive %s %s\n\n%s.\n\nOptions:\n", siteCommand.name, siteCommand.args, siteCommand.summary)
		fs.PrintDefaults()
	}
	if c.helpAsked(fs, args) {
		return 0
	}
	pos, code, done := c.parse(fs, args)
	if done {
		return code
	}
	a := &archiveArgs{name: "site", data: data}
	if len(pos) != 1 {
		return c.archiveFail(a, "expected one directory to write the site in, got %d arguments", len(pos))
	}
	s, code := c.archiveOpen(a, false)
	if s == nil {
		return code
	}
	defer s.Close()
	h, err := web.New(s, &web.Options{Lookup: referee.Lookup, Games: catalogIDs(), Title: *title, Private: privateGame, Tournaments: webTournaments(s)})
	if err != nil {
		return c.archiveFail(a, "%v", err)
	}
	start := time.Now()
	st, err := h.WriteSite(context.Background(), pos[0], &o)
	if err != nil {
		return c.archiveFail(a, "%v", err)
	}
	el := time.Since(start)
	fmt.Fprintf(c.stdout, "pbem archive site: %d games, %d files (%.1f MB) in %s in %.1fs (%.0f games/s)\n",
		st.Games, st.Pages, float64(st.Bytes)/1e6, pos[0], el.Seconds(), float64(st.Games)/el.Seconds())
	return 0
}
