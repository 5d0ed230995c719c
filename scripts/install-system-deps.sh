#!/usr/bin/env bash
# Install the Debian packages the test suite needs:
#   - chromium   (Playwright drives /usr/bin/chromium via executable_path;
#                 `playwright install` is not used)
#   - postgresql (server binaries, for the PostgreSQL storage tests)
# Idempotent: returns quickly when everything is already present.
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive

have_chromium() { command -v chromium >/dev/null 2>&1; }
have_postgres() { compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null; }
have_fonts() { [ -d /usr/share/fonts/truetype/dejavu ]; }

pkgs=()
have_chromium || pkgs+=(chromium)
have_postgres || pkgs+=(postgresql)
have_fonts || pkgs+=(fonts-dejavu-core)

if [ ${#pkgs[@]} -eq 0 ]; then
    echo "install-system-deps: chromium and postgresql already present"
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-system-deps: apt-get not available; please install: ${pkgs[*]}" >&2
    exit 1
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=(sudo -E)
    else
        echo "install-system-deps: need root (or sudo) to install: ${pkgs[*]}" >&2
        exit 1
    fi
fi

echo "install-system-deps: installing ${pkgs[*]}"
# Refresh the package lists (only reached when something must be installed;
# a clean machine's lists are often missing or stale).
"${SUDO[@]}" apt-get update -qq
# Don't let the postgresql package auto-start a system cluster service
# (test.sh creates its own throwaway cluster); policy-rc.d 101 = "deny".
policy_rc_created=0
if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | "${SUDO[@]}" tee /usr/sbin/policy-rc.d >/dev/null
    "${SUDO[@]}" chmod +x /usr/sbin/policy-rc.d
    policy_rc_created=1
fi
cleanup() {
    if [ "$policy_rc_created" = 1 ]; then "${SUDO[@]}" rm -f /usr/sbin/policy-rc.d; fi
}
trap cleanup EXIT

"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null

have_chromium || { echo "install-system-deps: chromium missing after install" >&2; exit 1; }
have_postgres || { echo "install-system-deps: postgres missing after install" >&2; exit 1; }
echo "install-system-deps: done ($(chromium --version 2>/dev/null || echo chromium), $(ls -d /usr/lib/postgresql/*/bin/postgres))"
