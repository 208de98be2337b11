#!/usr/bin/env bash
# Installs Chromium (Debian package chromium) for the browser test of the web
# pages (pbem/archive/web), unless it is already there. The test starts its
# own headless instance with a fresh profile; nothing is configured here.
# Run as root. CI runs this before the tests and sets PBEM_REQUIRE_CHROMIUM=1
# so that a missing Chromium fails the run instead of skipping the test.
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1; }

if have chromium; then
	echo "chromium.sh: $(chromium --version 2>/dev/null || echo chromium) already installed"
	exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
for i in 1 2 3; do
	if $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends chromium; then
		break
	fi
	[ "$i" = 3 ] && { echo "chromium.sh: apt-get failed" >&2; exit 1; }
	sleep $((i * 5))
done
echo "chromium.sh: installed $(chromium --version)"
