package mail

import (
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"time"
)

// Security is how a connection to a mail server is protected.
type Security string

const (
	// SecurityTLS is implicit TLS (IMAPS on 993, SMTPS on 465).
	SecurityTLS Security = "tls"
	// SecurityStartTLS is a plain connection upgraded with STARTTLS.
	SecurityStartTLS Security = "starttls"
	// SecurityPlain is an unencrypted connection, allowed only to a
	// loopback address unless the options force it.
	SecurityPlain Security = "plain"
)

// CheckSecurity validates sec for addr as NewPoller and NewSender do,
// so that a program that connects by other means (pbem doctor) refuses
// what they refuse: an unknown security, or SecurityPlain, which sends
// the password in clear, to an address not on loopback unless
// allowInsecure. "" means SecurityTLS.
func CheckSecurity(sec Security, addr string, allowInsecure bool) (Security, error) {
	return checkSecurity(sec, addr, allowInsecure)
}

// checkSecurity validates sec for addr; "" means SecurityTLS.
func checkSecurity(sec Security, addr string, allowInsecure bool) (Security, error) {
	switch sec {
	case "":
		sec = SecurityTLS
	case SecurityTLS, SecurityStartTLS, SecurityPlain:
	default:
		return "", fmt.Errorf("mail: unknown security %q (want tls, starttls or plain)", sec)
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("mail: bad address %q: %v", addr, err)
	}
	if sec == SecurityPlain && !allowInsecure && !isLoopback(host) {
		return "", fmt.Errorf("mail: plain (unencrypted) connection to %s is allowed only on loopback; use tls or starttls, or force it", addr)
	}
	return sec, nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// backoff returns the delay before attempt n (0-based): min·2ⁿ capped at
// max, with up to 10% jitter so that many clients do not retry in step.
func backoff(n int, min, max time.Duration) time.Duration {
	d := min
	for i := 0; i < n && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	if j := int64(d) / 10; j > 0 {
		d += time.Duration(rand.Int64N(j))
	}
	return d
}
