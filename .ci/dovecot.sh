#!/usr/bin/env bash
# Installs Dovecot 2.3 (IMAP + LMTP) for the mail integration tests
# (pbem/mail/dovecottest), unless it is already there. The tests start
# their own private instance from a config under t.TempDir(); the system
# service is neither configured nor started here. Run as root. CI runs this
# before the tests and sets PBEM_REQUIRE_DOVECOT=1 so that a missing
# Dovecot fails the run instead of skipping the test.
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ]; }

if have dovecot && [ -x /usr/lib/dovecot/imap ] && [ -x /usr/lib/dovecot/lmtp ]; then
	echo "dovecot.sh: $(/usr/sbin/dovecot --version 2>/dev/null || dovecot --version) already installed"
	exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
# Keep the package from starting the system-wide service (there may be no
# init system, and the tests do not want it).
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
	$SUDO chmod +x /usr/sbin/policy-rc.d
	trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
fi
for i in 1 2 3; do
	if $SUDO apt-get update -qq && $SUDO apt-get install -y -qq dovecot-imapd dovecot-lmtpd; then
		break
	fi
	[ "$i" = 3 ] && { echo "dovecot.sh: apt-get failed" >&2; exit 1; }
	sleep $((i * 5))
done
echo "dovecot.sh: installed $(/usr/sbin/dovecot --version)"
