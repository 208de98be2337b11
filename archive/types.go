package archive

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"pbem/mail/envelope"
)

// Address is a mailbox: a display name (possibly empty) and an address;
// the one type mail uses too.
type Address = envelope.Address

// Game statuses.
const (
	// Invited: the game waits until every invitee has accepted.
	Invited = "invited"
	// Playing: the game is under way.
	Playing = "playing"
	// Over: the game has ended (by the rules, resignation, agreement or
	// time); its record is in the archive table.
	Over = "over"
	// Declined: an invitee declined, or the creator withdrew.
	Declined = "declined"
	// Expired: the invitations were not all accepted in time.
	Expired = "expired"
)

// Active reports whether a game with this status is invited or playing.
func Active(status string) bool { return status == Invited || status == Playing }

// Game is a correspondence game as the referee keeps it.
type Game struct {
	ID     int64
	Game   string // the game id in the catalog, e.g. "castles"
	Status string // Invited, Playing, Over, Declined or Expired
	// Options as given when the game was created.
	Options GameOptions
	// Seats in seat order: Seats[i] plays side i.
	Seats []Seat
	// Observers watch the game: once confirmed they get every board.
	Observers []Observer
	// Offers pending (draw, undo).
	Offers []Offer
	// Conditions are the seats' pending conditional lines, at most one
	// tree per seat. They are secret: only their owner ever reads them.
	Conditions []Conditions
	// Record is the canonical game record (notation.Write) once the game
	// has started; "" while invitations are pending.
	Record string
	// TurnStart is when the side to move got the move (or, for an
	// invitation, when it was sent); Deadline is when its time runs out
	// (or the invitations expire).
	TurnStart, Deadline time.Time
	// Reminded holds the reminders sent for the current turn (a bit set
	// the referee defines).
	Reminded int
	// Due is the next time the clock needs the referee (a reminder or
	// the deadline); zero when nothing is due.
	Due time.Time
	// Thread is the Message-ID (without angle brackets) every mail of the
	// game refers to, so that the game is one thread.
	Thread           string
	Created, Updated time.Time
	// Version counts the commits of the game: 0 for a game not stored
	// yet. Commit refuses a game whose Version is not the stored one
	// (ErrConflict) and increments it.
	Version int64

	// stored is what the store holds of the seats and observers, as of
	// the version read; a commit of that version that leaves them as they
	// were does not write them again.
	stored storedPeople
}

// storedPeople is a hash of a game's seats and observers as the store held
// them at a version (0: unknown, always written).
type storedPeople struct {
	version int64
	hash    uint64
}

// GameOptions are the choices made when a game was created.
type GameOptions struct {
	Players int    `json:"players,omitempty"`
	Board   string `json:"board,omitempty"`
	// First is "random", an address, or "" (the creator's order).
	First string `json:"first,omitempty"`
	// Days per move (the control when Base is zero).
	Days int `json:"days"`
	// Control is the rest of the time control.
	Control
	Rated bool   `json:"rated"`
	Event string `json:"event,omitempty"`
	Round string `json:"round,omitempty"`
	// Inviter is the address that asked for the game. Its seat joins only
	// when it confirms with the token mailed to it, and the invitations go
	// out then; "" for games made before that rule (the creator joined at
	// once).
	Inviter string `json:"inviter,omitempty"`
	// Private games are not listed or shown to anyone but their players.
	Private bool `json:"private,omitempty"`
	// Leaver is what becomes of the seat of a player who resigns or runs
	// out of time in a game of three or more seats: "" (the seat leaves,
	// the others play on) or "bot:N" (the referee's computer player at
	// level N plays the seat to the end).
	Leaver string `json:"leaver,omitempty"`
	// Position is the canonical text of the position the game starts
	// from (docs/NOTATION.md, "Positions"); "" for the rules' start.
	Position string `json:"position,omitempty"`
}

// PlayedByComputer ends the side tag of a seat whose player resigned or
// ran out of time and whose seat the computer played on (the game's
// leaver=bot option): ratings leave that seat out.
const PlayedByComputer = "(resigned, played by the computer)"

// Control is a time control beyond days per move: Base, Inc and Max are
// a bank of time, its increment after each ply and its cap, in seconds
// (Base zero: the game's days per move); Grace is how long a side may
// still move after its clock ran out (seconds); Weekends "off":
// Saturdays and Sundays of the mover's time zone do not run its clock;
// NoVacation: a vacation does not stop the clocks (an event's choice).
type Control struct {
	Base       int64  `json:"base,omitempty"`
	Inc        int64  `json:"inc,omitempty"`
	Max        int64  `json:"max,omitempty"`
	Grace      int64  `json:"grace,omitempty"`
	Weekends   string `json:"weekends,omitempty"`
	NoVacation bool   `json:"novacation,omitempty"`
}

// Observer is an address that asked to watch a game. It gets the game's
// boards only once Confirmed, which it becomes by answering the mail that
// carries its Token; unwatch needs the Token too, so neither can be forged.
type Observer struct {
	Address
	Token     string
	Confirmed bool
}

// Seat is one player of a game.
type Seat struct {
	Side   string
	Player Address
	// Token is the player's secret for this game.
	Token string
	// Joined is true once the player has accepted the invitation; the
	// creator joins by confirming with its token (Options.Inviter), a
	// bot seat at once.
	Joined bool
}

// Offer is a pending draw offer or undo request.
type Offer struct {
	Kind     string `json:"kind"` // "draw", "undo" or "takeover"
	By       int    `json:"by"`   // seat of the player who made it
	Accepted []int  `json:"accepted,omitempty"`
	Ply      int    `json:"ply"` // plies played when it was made
	// Seat, To and Token are a takeover's: the seat that left, the
	// address invited to take it, and the secret its acceptance needs.
	Seat  int    `json:"seat,omitempty"`
	To    string `json:"to,omitempty"`
	Token string `json:"token,omitempty"`
}

// Conditions is one seat's tree of conditional lines ("if their ply is A,
// play B; then if theirs is C, play D"). Each line is the canonical plies
// to be played from the position after Base plies of the game, in order:
// the plies of other seats are the conditions, the seat's own the answers.
// Lines that share a start are one branch.
type Conditions struct {
	Seat  int        `json:"seat"`
	Base  int        `json:"base"`
	Lines [][]string `json:"lines"`
}

// Player is what the referee keeps about an address across games.
type Player struct {
	Address Address
	// VacationUntil is the end of the player's current (or last) vacation.
	VacationUntil time.Time
	// VacationYear is the year VacationDays counts for.
	VacationYear int
	VacationDays int
	// Mail is how the player wants mail: MailText for plain text only,
	// "" (or MailHTML) for text with an HTML part showing the board.
	Mail string
	// TZ is the player's time zone, an IANA name ("" is UTC): deadlines
	// are shown in it, and weekends off are its weekends.
	TZ string
	// Calendar is the generation of the player's calendar key
	// (CalendarKey): revoking the key moves it on, which makes every key
	// given before worthless.
	Calendar int
	// Digest is the hour ("HH:MM", in TZ) of the player's daily digest
	// of the games waiting on them; "" for none. DigestSent is the day
	// ("2006-01-02", in TZ) of the last digest made, so that a day has
	// one at most.
	Digest, DigestSent string
	// Version as for Game (0: not stored yet).
	Version int64
}

// Player.Mail values.
const (
	MailText = "text"
	MailHTML = "html"
)

// Sender is the rate-limit window of one sender address.
type Sender struct {
	Addr        string
	WindowStart time.Time
	Count       int
	// Warned is true once the sender was told of the limit in this window.
	Warned bool
}

// Auto-Submitted values of outgoing mail (RFC 3834).
const (
	AutoReplied   = envelope.AutoReplied
	AutoGenerated = envelope.AutoGenerated
)

// Outbox statuses.
const (
	Pending = "pending"
	Sent    = "sent"
	Failed  = "failed"
)

// Mail is an outgoing mail: the one type the Sender sends (mail.Outgoing),
// named here so that the store's users build an outbox row without
// importing the mail side.
type Mail = envelope.Outgoing

// Outgoing is a mail in the outbox: the mail itself (Mail), the game it
// is about and its delivery
// state. Every field but the delivery state is fixed when it is queued, so
// a retry sends the same message. The store keeps every field of the mail
// but FlowWidth (the application sets it when it sends). ID is assigned
// by Commit. AutoSubmitted is AutoReplied for an answer to a message,
// AutoGenerated for what the referee sends on its own (reminders, time
// forfeits); "" means AutoReplied. Attempts belongs to the delivery state.
type Outgoing struct {
	Mail
	GameID int64 // 0 for a mail about no game

	// Delivery state (and Attempts).
	Status      string // Pending, Sent or Failed
	NextAttempt time.Time
	LastError   string
}

// Inline is an image an HTML mail shows; the one type mail uses too. Its
// Picture, when Data is empty, is a picture.Drawing (a JSON string holding
// its binary form in base64, or, in mails stored by earlier versions, its
// JSON object; picture.DrawJSON reads both), drawn when the mail is sent.
type Inline = envelope.Inline

// Tag is one tag pair of a record.
type Tag struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Entry is one finished game in the archive: its canonical record and its
// tags. The table is general: games finished by the referee and games
// imported from record files alike.
type Entry struct {
	ID     int64
	GameID int64  // the referee's game id; 0 for an imported game
	Game   string // the game id in the catalog
	Result string
	Tags   []Tag
	Record string
	// Hash is the hex SHA-256 of Record (set by Commit when empty); a
	// record is archived once.
	Hash    string
	Rated   bool
	Created time.Time

	// positions are the game's positions when EntryOf made the entry from
	// a checked game (nil: the index reads them from Record).
	positions []positionRow
	// file and index say where an imported game was read.
	file  string
	index int
}

// Hash returns the content hash of a record text.
func Hash(record string) string {
	sum := sha256.Sum256([]byte(record))
	return hex.EncodeToString(sum[:])
}

// Change is everything one request (or one clock event) changes, committed
// in one transaction by Store.Commit.
type Change struct {
	// MessageID marks the request processed; a second Change with the same
	// MessageID fails with ErrDuplicate and changes nothing. "" for a
	// clock event.
	MessageID string
	At        time.Time
	Games     []*Game
	Players   []*Player
	Senders   []*Sender
	Outbox    []*Outgoing
	Entries   []*Entry
	// Tournaments are stored like Games: inserted at Version 0, else
	// updated only if their Version is still the stored one.
	Tournaments []*Tournament
	// Audit records the operators' actions of the change (see audit.go);
	// Blocks adds or removes blocked senders; AdminPending stores admin
	// commands by mail waiting for confirmation, or marks them done.
	Audit        []*Audit
	Blocks       []*Block
	AdminPending []*AdminPending
	// Notes are players' new private notes (see Note), stored with the
	// request that wrote them.
	Notes []*Note
	// Analyses are new requests for an analysis (ID 0) and finished ones.
	Analyses []*Analysis
	// Unsubscribe records addresses' unsubscriptions from a kind of mail
	// (the mailto: form of List-Unsubscribe, read by the referee).
	Unsubscribe []Unsubscription
	// Resubscribe undoes unsubscriptions: the address asked for that
	// kind of mail again (watch, digest games daily).
	Resubscribe []Unsubscription
	// Addresses changes players' addresses (addresses.go).
	Addresses *AddressChange
}
