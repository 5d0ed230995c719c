#!/usr/bin/env bash
# Run the whole test suite on a fresh machine (this is what CI runs).
#
#   1. install Debian packages if missing   (scripts/install-system-deps.sh)
#   2. pip install -e '.[dev]'
#   3. start a throwaway PostgreSQL cluster (if the server binaries exist) and
#      export LOSTCITIES_TEST_POSTGRES_URL
#   4. ruff check (the package, tests, benchmarks, examples, scripts); ruff format --check;
#      mypy lostcities; the docs site (mkdocs build --strict); beside them, in the background,
#      the numba kernels compiled once and the wheel (scripts/check_wheel.sh); then pytest
#
# Every check runs even if an earlier one fails; the script exits non-zero if
# any step failed (pytest exit code 5, "no tests collected", counts as failure).
#
# Environment:
#   PYTEST_ARGS   arguments for pytest (default: "-n 2"); shell-quoted, e.g.
#                 PYTEST_ARGS="-n 0 -m 'not slow'"
#   SKIP_INSTALL  set to 1 to skip steps 1 and 2
#   PYTHON        interpreter to use (default: python3)
#   HYPOTHESIS_PROFILE  tests/conftest.py's profile (default: ci)
#   HYPOTHESIS_SEED  the seed of Hypothesis' examples (default: a fresh one, printed)
#   LOSTCITIES_TEST_PG_PORT  port of the throwaway cluster (default: 54329)
#   LOSTCITIES_TEST_POSTGRES_URL  if already set, no cluster is started
#   LOSTCITIES_AUDIT_STRICT  set to 1 to fail when the audit could reach no database
# Extra command-line arguments are passed on to pytest.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON="${PYTHON:-python3}"
PYTEST_ARGS="${PYTEST_ARGS--n 2}"
PG_PORT="${LOSTCITIES_TEST_PG_PORT:-54329}"
PG_DB="lostcities_test"

t0=$SECONDS
step() { printf '\n==> %s\n' "$*"; }
die() { printf 'test.sh: %s\n' "$*" >&2; exit 1; }

# --------------------------------------------------------------------- install
if [ "${SKIP_INSTALL:-0}" != 1 ]; then
    step "system packages"
    bash scripts/install-system-deps.sh || die "installing system packages failed"

    step "pip install -e '.[dev]'"
    pip_log="$(mktemp)"
    if ! "$PYTHON" -m pip install -q -e '.[dev]' >"$pip_log" 2>&1; then
        cat "$pip_log" >&2
        rm -f "$pip_log"
        die "pip install failed"
    fi
    rm -f "$pip_log"
    echo "installed ($((SECONDS - t0))s so far)"
fi

# -------------------------------------------------------------- postgres cluster
PG_TMP=""
PG_BIN=""
bg_pids=()
pg_as() {
    # initdb/postgres refuse to run as root: drop to the postgres user.
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}
cleanup() {
    local pid
    for pid in "${bg_pids[@]}"; do  # a background check still running (interrupted)
        pkill -TERM -P "$pid" 2>/dev/null
        kill "$pid" 2>/dev/null
    done
    if [ -n "${docs_site:-}" ]; then
        rm -rf "$docs_site"
    fi
    if [ -n "$PG_TMP" ]; then
        if [ -f "$PG_TMP/data/postmaster.pid" ]; then
            pg_as "$PG_BIN/pg_ctl" -D "$PG_TMP/data" -m immediate -w stop >/dev/null 2>&1 || true
        fi
        rm -rf "$PG_TMP"
        PG_TMP=""
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

start_postgres() {
    PG_BIN="$(compgen -G '/usr/lib/postgresql/*/bin' | sort -V | tail -n1)"
    if [ -z "$PG_BIN" ] || [ ! -x "$PG_BIN/postgres" ]; then
        echo "no PostgreSQL server found; PostgreSQL tests will be skipped"
        return 0
    fi
    if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
        echo "running as root but no 'postgres' user; PostgreSQL tests will be skipped"
        return 0
    fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$PG_PORT") 2>/dev/null; then
        echo "port $PG_PORT is already in use (a stale cluster from an earlier run?);" \
            "stop it or set LOSTCITIES_TEST_PG_PORT" >&2
        return 1
    fi
    PG_TMP="$(mktemp -d /tmp/lostcities-pg.XXXXXX)"
    if [ "$(id -u)" -eq 0 ]; then
        chown postgres: "$PG_TMP"
    fi
    pg_as "$PG_BIN/initdb" -D "$PG_TMP/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 \
        --no-sync >"$PG_TMP/initdb.log" 2>&1 \
        || { cat "$PG_TMP/initdb.log" >&2; return 1; }
    pg_as "$PG_BIN/pg_ctl" -D "$PG_TMP/data" -l "$PG_TMP/server.log" -w -t 60 \
        -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -k $PG_TMP -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
        start >/dev/null \
        || { cat "$PG_TMP/server.log" >&2; return 1; }
    pg_as "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres "$PG_DB" || return 1
    export LOSTCITIES_TEST_POSTGRES_URL="postgresql+psycopg://postgres@127.0.0.1:$PG_PORT/$PG_DB"
    echo "PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') running:" \
        "LOSTCITIES_TEST_POSTGRES_URL=$LOSTCITIES_TEST_POSTGRES_URL"
}

if [ -n "${LOSTCITIES_TEST_POSTGRES_URL:-}" ]; then
    step "PostgreSQL: using existing LOSTCITIES_TEST_POSTGRES_URL"
else
    step "PostgreSQL throwaway cluster on 127.0.0.1:$PG_PORT"
    start_postgres || die "could not start the throwaway PostgreSQL cluster (see log above)"
fi

# ---------------------------------------------------------------------- checks
failed=()
run_check() {
    local name="$1"; shift
    local s=$SECONDS rc
    step "$name"
    "$@"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        failed+=("$name (exit $rc)")
    fi
    echo "--- $name: exit $rc, $((SECONDS - s))s"
}

# The checks before pytest use one core each, so they run two lanes at once on a 2-core
# machine: the numba compile and the wheel check in the background (each one's output is
# printed when it is waited for, before pytest), the linters, mypy, the audit and the docs
# site in the foreground.
bg_names=()
bg_pids=()
bg_logs=()
bg_starts=()
run_bg() {
    local name="$1"; shift
    local log
    log="$(mktemp)"
    "$@" >"$log" 2>&1 &
    bg_names+=("$name")
    bg_pids+=("$!")
    bg_logs+=("$log")
    bg_starts+=("$SECONDS")
    printf '\n==> %s (in the background)\n' "$name"
}
wait_bg() {
    local i rc
    for i in "${!bg_pids[@]}"; do
        wait "${bg_pids[$i]}"
        rc=$?
        step "${bg_names[$i]} (ran in the background)"
        cat "${bg_logs[$i]}"
        rm -f "${bg_logs[$i]}"
        if [ "$rc" -ne 0 ]; then
            failed+=("${bg_names[$i]} (exit $rc)")
        fi
        echo "--- ${bg_names[$i]}: exit $rc, $((SECONDS - bg_starts[$i]))s"
    done
    bg_names=()
    bg_pids=()
    bg_logs=()
    bg_starts=()
}

# the kernels compiled once into numba's cache, so pytest's workers load them; then the wheel
# (its fresh environments compile into caches of their own)
run_bg "compile the numba kernels once, then the wheel and sdist (fresh venvs)" \
    bash -c '"$1" scripts/warm_numba.py; a=$?; env PYTHON="$1" bash scripts/check_wheel.sh; b=$?
             exit $((a ? a : b))' _ "$PYTHON"
run_check "ruff check" "$PYTHON" -m ruff check lostcities tests benchmarks examples scripts docs_hooks conftest.py
run_check "ruff format --check" "$PYTHON" -m ruff format --check .
run_check "mypy" "$PYTHON" -m mypy lostcities
# fails on a known vulnerability that has a fix; passes (saying so) when no vulnerability
# database can be reached, unless LOSTCITIES_AUDIT_STRICT=1 (scripts/audit.py)
run_check "pip-audit" "$PYTHON" scripts/audit.py
# the documentation site, strict: a broken link, a page left out of the nav, an unresolved
# reference or a docstring griffe cannot read fails (mkdocs.yml). Built once: pytest's checks
# of the built pages (tests/test_docs_positions.py) read this build (LOSTCITIES_DOCS_SITE)
# instead of building the site a second time; it is thrown away after pytest
docs_site="$(mktemp -d)"
run_check "docs site (mkdocs build --strict)" "$PYTHON" -m mkdocs build --strict --quiet \
    --site-dir "$docs_site"
if [ -f "$docs_site/index.html" ]; then
    export LOSTCITIES_DOCS_SITE="$docs_site"
fi
wait_bg
# Hypothesis draws its examples from one seed per run, printed here and in pytest's header
# ("hypothesis: profile 'ci', seed N"): HYPOTHESIS_SEED=N reruns a failure's examples
# (the "ci" profile of tests/conftest.py; HYPOTHESIS_PROFILE picks another)
export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"
HYPOTHESIS_SEED="${HYPOTHESIS_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}"
echo "Hypothesis seed: $HYPOTHESIS_SEED (rerun with HYPOTHESIS_SEED=$HYPOTHESIS_SEED)"
eval "pytest_args=($PYTEST_ARGS)"
# --durations=20: the 20 slowest tests at the end of the log, to keep the suite's time in view
run_check "pytest" "$PYTHON" -m pytest "${pytest_args[@]}" --durations=20 \
    --hypothesis-seed="$HYPOTHESIS_SEED" "$@"
unset LOSTCITIES_DOCS_SITE
rm -rf "$docs_site"
# speed figures in a short mode, printed and kept in $LOSTCITIES_BENCH_OUT (default .bench/)
# with a comparison to the previous run's file there; no thresholds: a 2x regression shows
run_check "benchmark, short (figures only)" "$PYTHON" benchmarks/ci_bench.py --out "${LOSTCITIES_BENCH_OUT:-.bench}"

cleanup

echo
if [ ${#failed[@]} -ne 0 ]; then
    printf 'FAILED (%ss):\n' "$((SECONDS - t0))"
    printf '  %s\n' "${failed[@]}"
    exit 1
fi
echo "ALL CHECKS PASSED ($((SECONDS - t0))s)"
