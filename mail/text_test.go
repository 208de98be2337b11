package mail_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/mail"
)

func TestParseFormatFlowed(t *testing.T) {
	tests := []struct {
		name, ct, body, want string
	}{
		{"joined", "text/plain; charset=utf-8; format=flowed",
			"I resign this game, it was a pleasure playing \nwith you.\n \n>> quoted \n>> more\n-- \nAlice\n",
			"I resign this game, it was a pleasure playing with you.\n\n>> quoted more\n-- \nAlice\n"},
		{"delsp", "text/plain; format=flowed; delsp=yes",
			"abc \ndef\n", "abcdef\n"},
		{"space-stuffed", "text/plain; format=flowed",
			" From here\n >not a quote\n", "From here\n>not a quote\n"},
		{"not flowed", "text/plain",
			"keep \nlines\n", "keep \nlines\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := crlf("From: a@h\nContent-Type: " + tt.ct + "\n\n" + tt.body)
			in, err := mail.Parse(raw)
			require.NoError(t, err)
			assert.Equal(t, tt.want, in.Text)
		})
	}
}

func TestFreshText(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"plain", "e4\n", "e4"},
		{"quote and attribution", "\nNf3\n\nOn Fri, 1 Mar 2024, pbem referee <referee@pbem.local> wrote:\n> Your move.\n>\n>  a b c\n", "Nf3"},
		{"french", "d4\nLe 1 mars 2024, Arbitre a écrit :\n\n> À vous.\n", "d4"},
		{"signature", "resign\n-- \nAlice\n> not reached\n", "resign"},
		{"outlook", "draw?\n\n-----Original Message-----\nFrom: referee\nYour move.\n", "draw?"},
		{"bottom posting", "> Your move.\n\ne4\n", "e4"},
		{"colon without quote kept", "Moves:\n1. e4\n", "Moves:\n1. e4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, mail.FreshText(tt.text))
			assert.Equal(t, tt.want, mail.FreshText(strings.ReplaceAll(tt.text, "\n", "\r\n")))
		})
	}
}
