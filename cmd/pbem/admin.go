package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"pbem/archive"
	"pbem/referee"
)

// embeddedReferee is the referee's address on the embedded mail servers
// (their default account and domain), for pbem admin without a
// configuration.
const embeddedReferee = "referee@pbem.local"

func (c *cli) adminUsage(w io.Writer) {
	fmt.Fprintf(w, `Usage: pbem admin [--config FILE] [--data DIR] [--as NAME] COMMAND ...

Operate a referee's store, also while pbem serve runs on it. Every action is
one commit with an audit record, and is mailed to the players it touches
(the running referee sends it within its poll interval, at once on SIGHUP).

Reading:
  games [--active|--stalled DAYS|--player ADDR|--event E]   list games
  game N                         a game, its players, clock and audit
  blocked                        the blocked senders
  audit                          every audit record

Actions:
%s

Options:
`, indentLines(referee.AdminUsage, "  "))
}

func indentLines(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = prefix + lines[i]
	}
	return strings.Join(lines, "\n")
}

// operator is who runs pbem admin, for the audit: --as, else the login.
func operator(as string) string {
	if as == "" {
		for _, v := range []string{"SUDO_USER", "USER", "LOGNAME"} {
			if as = os.Getenv(v); as != "" {
				break
			}
		}
	}
	if as == "" {
		as = "unknown"
	}
	return "cli:" + as
}

// operatorConfig loads the configuration of pbem admin, backup, restore and
// doctor: --config, else the embedded defaults; --data overrides the data
// directory.
func operatorConfig(config, data string) (*Config, error) {
	var cfg *Config
	if config != "" {
		var err error
		if cfg, err = loadConfig(config); err != nil {
			return nil, err
		}
	} else {
		cfg = &Config{}
		cfg.defaults()
		cfg.Referee.Address = embeddedReferee
	}
	if data != "" {
		cfg.DataDir = data
	}
	return cfg, nil
}

// refereeOptions are the referee's options from a configuration, the same
// for pbem serve and pbem admin, so that an operator's action writes its
// mails as the running referee would.
func refereeOptions(cfg *Config) *referee.Options {
	return &referee.Options{Address: cfg.Referee.Address, Name: cfg.Referee.Name,
		RateLimit: cfg.Referee.RateLimit, RateLimitTotal: cfg.Referee.RateLimitTotal, RateWindow: cfg.Referee.RateWindow,
		MaxBotGames: cfg.Referee.BotGames, MaxBotGamesTotal: cfg.Referee.BotGamesTotal, TextMail: cfg.Referee.TextMail,
		WebBaseURL: cfg.Web.BaseURL, Unauthenticated: cfg.IMAP.Unauthenticated, Admins: cfg.Admins}
}

// storeSecrets gives the referee the store's secrets: the key of its
// Message-IDs and marks, and that of the players' calendar keys, which the
// web pages check with the same store.
func storeSecrets(ctx context.Context, store *archive.Store, ro *referee.Options) error {
	var err error
	if ro.Secret, err = store.Secret(ctx, referee.SecretName); err != nil {
		return err
	}
	if ro.CalendarSecret, err = store.Secret(ctx, archive.CalendarSecretName); err != nil {
		return err
	}
	ro.UnsubscribeSecret, err = store.Secret(ctx, archive.UnsubscribeSecretName)
	return err
}

func runAdmin(c *cli, args []string) int {
	fs := flag.NewFlagSet("pbem admin", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	config := fs.String("config", "", "configuration `file` of pbem serve (default: the embedded servers' defaults)")
	data := fs.String("data", "", "data `dir`ectory (default: the config's data_dir, else ./pbem-data)")
	as := fs.String("as", "", "operator `name` in the audit (default: $SUDO_USER, else $USER)")
	usage := func(w io.Writer) { c.adminUsage(w); fs.SetOutput(w); fs.PrintDefaults() }
	fs.Usage = func() {} // printed below, once
	// admin's own flags may come before or after the command and its
	// words (pbem admin games --data DIR as pbem admin --data DIR games);
	// the command's flags stay with it.
	own, words := pluckFlags(fs, args)
	if err := fs.Parse(own); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(c.stdout)
			return 0
		}
		usage(c.stderr)
		return 2
	}
	words = append(words, fs.Args()...)
	if len(words) == 0 {
		usage(c.stderr)
		return 2
	}
	if w := words[0]; w == "-h" || w == "-help" || w == "--help" || w == "help" {
		usage(c.stdout)
		return 0
	}
	cfg, err := operatorConfig(*config, *data)
	if err != nil {
		fmt.Fprintf(c.stderr, "pbem admin: %v\n", err)
		return 2
	}
	if _, err := os.Stat(cfg.DataDir); err != nil && !cfg.postgres() {
		fmt.Fprintf(c.stderr, "pbem admin: data directory: %v; expected the data_dir of a referee (--data DIR)\n", err)
		return 1
	}
	ctx := context.Background()
	store, err := archive.OpenStore(ctx, cfg.storeAddress(), nil)
	if err != nil {
		fmt.Fprintf(c.stderr, "pbem admin: %v\n", err)
		return 1
	}
	defer store.Close()
	switch words[0] {
	case "games":
		return c.adminGames(ctx, store, words[1:])
	case "game":
		return c.adminGame(ctx, store, words[1:])
	case "blocked":
		return c.adminBlocked(ctx, store)
	case "audit":
		return c.adminAudit(ctx, store, 0)
	}
	ro := refereeOptions(cfg)
	if err := storeSecrets(ctx, store, ro); err != nil {
		fmt.Fprintf(c.stderr, "pbem admin: %v\n", err)
		return 1
	}
	ref, err := referee.New(store, ro)
	if err != nil {
		fmt.Fprintf(c.stderr, "pbem admin: %v\n", err)
		return 2
	}
	text, err := ref.Admin(ctx, operator(*as), words)
	var ae *referee.AdminError
	switch {
	case errors.As(err, &ae):
		fmt.Fprintf(c.stderr, "pbem admin: %s\n", ae.Reason)
		return 2
	case err != nil:
		fmt.Fprintf(c.stderr, "pbem admin: %v\n", err)
		return 1
	}
	fmt.Fprintf(c.stdout, "%s\n", text)
	return 0
}

// pluckFlags takes the flags fs defines, with their values, out of args
// wherever they stand (up to a "--"), and returns them apart from the rest,
// which keep their order.
func pluckFlags(fs *flag.FlagSet, args []string) (own, rest []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return own, append(rest, args[i:]...)
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.Lookup(name)
		if !strings.HasPrefix(a, "-") || f == nil {
			rest = append(rest, a)
			continue
		}
		own = append(own, a)
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if !hasValue && i+1 < len(args) {
			i++
			own = append(own, args[i])
		}
	}
	return own, rest
}

func (c *cli) adminGames(ctx context.Context, store *archive.Store, args []string) int {
	fs := flag.NewFlagSet("pbem admin games", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	active := fs.Bool("active", false, "invited and playing games only")
	stalled := fs.Int("stalled", 0, "playing games whose side to move has not moved for `DAYS` days")
	player := fs.String("player", "", "games in which `ADDR` has a seat")
	event := fs.String("event", "", "games of the event `E`")
	pos, code, done := c.parse(fs, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(c.stderr, "pbem admin games: unexpected argument %q\n", pos[0])
		return 2
	}
	if *stalled < 0 {
		fmt.Fprintf(c.stderr, "pbem admin games: --stalled %d: expected a number of days, 1 or more\n", *stalled)
		return 2
	}
	f := archive.GameFilter{Active: *active, Player: *player, Event: *event}
	if *stalled > 0 {
		f.StalledSince = time.Now().Add(-time.Duration(*stalled) * 24 * time.Hour)
	}
	gs, err := store.FindGames(ctx, f)
	if err != nil {
		fmt.Fprintf(c.stderr, "pbem admin: %v\n", err)
		return 1
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "GAME\tKIND\tSTATUS\tPLAYERS\tTURN SINCE\tDEADLINE\tEVENT")
	for _, g := range gs {
		var ps []string
		for _, st := range g.Seats {
			ps = append(ps, st.Player.Addr)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", g.ID, g.Game, g.Status, strings.Join(ps, ", "),
			when(g.TurnStart), when(g.Deadline), g.Options.Event)
	}
	tw.Flush()
	return 0
}

func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

func (c *cli) adminGame(ctx context.Context, store *archive.Store, args []string) int {
	if len(args) != 1 {
		fmt.Fprintf(c.stderr, "pbem admin game: expected one game number\n")
		return 2
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(args[0], "#"), 10, 64)
	if err != nil || id <= 0 {
		fmt.Fprintf(c.stderr, "pbem admin game: %q is not a game number\n", args[0])
		return 2
	}
	g, err := store.Game(ctx, id)
	if errors.Is(err, archive.ErrNotFound) {
		fmt.Fprintf(c.stderr, "pbem admin game: there is no game #%d\n", id)
		return 1
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "pbem admin: %v\n", err)
		return 1
	}
	w := c.stdout
	fmt.Fprintf(w, "game #%d: %s, %s, %d days per move, rated=%v, private=%v, event %q\n", g.ID, g.Game, g.Status,
		g.Options.Days, g.Options.Rated, g.Options.Private, g.Options.Event)
	for i, st := range g.Seats {
		fmt.Fprintf(w, "  seat %d (%s): %s joined=%v\n", i+1, st.Side, formatAddress(st.Player), st.Joined)
	}
	for _, o := range g.Observers {
		fmt.Fprintf(w, "  watcher: %s confirmed=%v\n", formatAddress(o.Address), o.Confirmed)
	}
	fmt.Fprintf(w, "  turn since %s, deadline %s, next due %s, updated %s\n", when(g.TurnStart), when(g.Deadline), when(g.Due), when(g.Updated))
	if g.Record != "" {
		fmt.Fprintf(w, "  record:\n%s\n", indentLines(strings.TrimRight(g.Record, "\n"), "    "))
	}
	as, err := store.Audits(ctx, g.ID)
	if err != nil {
		fmt.Fprintf(c.stderr, "pbem admin: %v\n", err)
		return 1
	}
	fmt.Fprintf(w, "  audit:\n")
	if len(as) == 0 {
		fmt.Fprintf(w, "    (none)\n")
	}
	for _, a := range as {
		fmt.Fprintf(w, "    %s\n", auditLine(a))
	}
	return 0
}

func formatAddress(a archive.Address) string {
	if a.Name == "" {
		return a.Addr
	}
	return fmt.Sprintf("%s <%s>", a.Name, a.Addr)
}

func auditLine(a archive.Audit) string {
	l := fmt.Sprintf("%s %s: %s", when(a.At), a.Actor, a.Action)
	if a.Reason != "" {
		l += fmt.Sprintf(" (%s)", a.Reason)
	}
	return l
}

func (c *cli) adminAudit(ctx context.Context, store *archive.Store, game int64) int {
	as, err := store.Audits(ctx, game)
	if err != nil {
		fmt.Fprintf(c.stderr, "pbem admin: %v\n", err)
		return 1
	}
	for _, a := range as {
		fmt.Fprintln(c.stdout, auditLine(a))
	}
	return 0
}

func (c *cli) adminBlocked(ctx context.Context, store *archive.Store) int {
	bs, err := store.Blocks(ctx)
	if err != nil {
		fmt.Fprintf(c.stderr, "pbem admin: %v\n", err)
		return 1
	}
	for _, b := range bs {
		l := fmt.Sprintf("%s (since %s by %s", b.Pattern, when(b.At), b.Actor)
		if b.Reason != "" {
			l += ": " + b.Reason
		}
		fmt.Fprintln(c.stdout, l+")")
	}
	return 0
}
