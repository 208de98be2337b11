package mail

import (
	"strconv"
	"strings"
	"testing"
)

// TestFreshTextShapes: header blocks and attributions are found by their
// shape in any language, and the person's own lines that only look like
// them are kept.
func TestFreshTextShapes(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"header block in French", "e4\n\nDe : Referee<mailto:referee@pbem.example>\nEnvoyé le :jeudi 15 décembre 2016 09:35\nÀ : bob@example.org\nObjet :Your move\n\nold\n", "e4"},
		{"header block in Chinese", "e4\n发件人: Referee <referee@pbem.example>\n发送时间: 2017年8月2日 15:37\n收件人: Bob\n主题: game 12\nold\n", "e4"},
		{"header block with full-width colons", "e4\n发件人：Referee <referee@pbem.example>\n发送时间：2017年8月2日 15:37\n收件人：Bob\nold\n", "e4"},
		{"header block starting with Date", "e4\n\nDate: Thu, 26 Jun 2014 13:53:45 +0400\nSubject: Your move\nFrom: referee@pbem.example\nTo: bob@example.org\n\nold\n", "e4"},
		{"rule before a header block", "e4\n\n ------------------------------\n\n*From:* Referee [mailto:referee@pbem.example]\n*Sent:* Thursday, February 09, 2012 1:36 PM\n*To:* bob@example.org\n", "e4"},
		{"labels with a time but no date kept", "Ply: e4\nGame: 12\nTime: 10:30\n", "Ply: e4\nGame: 12\nTime: 10:30"},
		{"header block with a date and no address", "e4\n\nОт: Referee\nОтправлено: четверг, 26 июня 2014 г. 15:05\nКому: Bob\n\nold\n", "e4"},
		{"labels without address or date kept", "Game: chess\nColour: white\nOpponent: Carol\n", "Game: chess\nColour: white\nOpponent: Carol"},
		{"seat plies kept", "R:Lc1-c2\nB:Lc7-c6\nG:Lb1-b2\n", "R:Lc1-c2\nB:Lc7-c6\nG:Lb1-b2"},
		{"attribution without quote", "e4\n\n2014-03-20 8:48 GMT+01:00 Referee <referee@pbem.example>:\nYour move.\n", "e4"},
		{"attribution without colon", "e4\n\nOn Wed, 14 Nov 2018 08:14:43 -0200 Referee <referee@pbem.example> wrote\n\nYour move.\n", "e4"},
		{"attribution in Korean", "e4\n2016. 11. 8. 오후 12:39 Referee <referee@pbem.example> 작성:\nYour move.\n", "e4"},
		{"attribution over three lines", "e4\n\nOn Nov 21, 2014,\nat 10:18,\nReferee <referee@pbem.example> wrote:\n\n> Your move.\n", "e4"},
		{"attribution over two lines", "e4\n\npe 20. lokakuuta 2017 klo 17.50 Referee\n<referee@pbem.example> kirjoitti:\n\nYour move.\n", "e4"},
		{"address wrapped before the colon", "e4\n\ntir. 18. apr. 2017 kl. 13:09 skrev Referee <referee@pbem.example\n>:\n\n> Your move.\n", "e4"},
		{"greeting before an attribution kept", "Hi Carol,\nOn Mon, 21 Nov 2026 at 10:00, Referee <referee@pbem.example> wrote:\n> Your move.\n", "Hi Carol,"},
		{"wrote without address, date or quote kept", "e4\nSomething Carol wrote:\nwas right.\n", "e4\nSomething Carol wrote:\nwas right."},
		{"device tag", "e4\n\nSent from TypeApp<http://www.typeapp.com/r?b=2621>\n", "e4"},
		{"sent from in a sentence kept", "e4\nSent from my desk, is much easier then my mobile phone.\n", "e4\nSent from my desk, is much easier then my mobile phone."},
		{"list footer", "e4\n\n__\nchess-club mailing list\nchess-club@lists.example.org\n", "e4"},
		{"quoted line broken by the client", "e4\n\nOn Mon, 21 Nov 2026 at 10:00, Referee <referee@pbem.example> wrote:\n> Lorem ipsum dolor sit amet, consectetur adipiscing elit. Nullam pharetra d\nignissim odio?\n>\n", "e4"},
		{"inline answer after a short quoted line kept", "> Your move.\ne4 e5\n> Next.\n", "e4 e5"},
		{"inline answer of two words kept", "> Lorem ipsum dolor sit amet, consectetur adipiscing elit. Nullam pharetra\naccept draw\n> Next.\n", "accept draw"},
		{"inline answer of one word kept", "> Lorem ipsum dolor sit amet, consectetur adipiscing elit. Nullam pharetra\nresign\n> Next.\n", "resign"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FreshText(tt.text); got != tt.want {
				t.Errorf("FreshText(%q) =\n%s\nwant\n%s", tt.text, got, tt.want)
			}
		})
	}
}

// BenchmarkFreshTextShapes reads 1 MB of the person's lines that each
// look in part like a header block, an attribution, a rule or a device tag
// (and none is one): the time per byte stays that of an ordinary reply.
func BenchmarkFreshTextShapes(b *testing.B) {
	var s strings.Builder
	for i := 0; s.Len() < 1<<20; i++ {
		n := strconv.Itoa(i)
		s.WriteString("Label: a" + n + "@b\nVon: x\n\nOn 21 Nov, Carol,\nat the club,\nsaid:\n====\nwell\n")
		s.WriteString("Sent from my desk, " + n + ".\n" + strings.Repeat("1@ 3.4. ", 20) + "ok\n\n")
	}
	text := s.String()
	if got := FreshText(text); len(got) < len(text)/2 {
		b.Fatalf("FreshText kept %d bytes of %d: the input no longer measures reading to the end", len(got), len(text))
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		FreshText(text)
	}
}
