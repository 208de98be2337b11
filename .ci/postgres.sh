#!/usr/bin/env bash
# Installs PostgreSQL (Debian's postgresql package: initdb, postgres and
# the contrib extensions, pg_trgm among them) for the store's tests
# (pbem/archive/pgtest), unless it is already there. The tests start their
# own private cluster (initdb into a temporary directory, loopback only);
# the system service is neither configured nor started here. Run as root.
# CI runs this before the tests and sets PBEM_REQUIRE_POSTGRES=1 so that a
# missing PostgreSQL fails the run instead of skipping the tests.
set -euo pipefail

installed() {
	for bin in /usr/lib/postgresql/*/bin; do
		if [ -x "$bin/initdb" ] && [ -x "$bin/postgres" ] &&
			[ -e "/usr/share/postgresql/$(basename "$(dirname "$bin")")/extension/pg_trgm.control" ]; then
			echo "$bin"
			return 0
		fi
	done
	return 1
}

if bin=$(installed); then
	echo "postgres.sh: $("$bin/postgres" --version) already installed"
	exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
# Keep the package from starting the system-wide cluster (there may be no
# init system, and the tests do not want it).
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
	$SUDO chmod +x /usr/sbin/policy-rc.d
	trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
fi
for i in 1 2 3; do
	if $SUDO apt-get update -qq && $SUDO apt-get install -y -qq postgresql; then
		break
	fi
	[ "$i" = 3 ] && { echo "postgres.sh: apt-get failed" >&2; exit 1; }
	sleep $((i * 5))
done
bin=$(installed) || { echo "postgres.sh: postgresql installed, but no initdb, postgres and pg_trgm under /usr/lib/postgresql/*/bin" >&2; exit 1; }
echo "postgres.sh: installed $("$bin/postgres" --version)"
