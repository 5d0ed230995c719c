#!/usr/bin/env bash
# Build the wheel and the sdist, then install the wheel where nothing else is and use it.
#
#   1. python -m build --no-isolation  -> dist/lostcities-VERSION-py3-none-any.whl + .tar.gz;
#      both hold the package data (weights, web pages and catalogues, TUI styles), the wheel
#      no numba cache and no bytecode
#   2. a fresh virtual environment (no system packages): pip install the wheel (the core has
#      no dependencies, so nothing is downloaded); lostcities --version, lostcities score,
#      import lostcities
#   3. a virtual environment that sees the installed extras (--system-site-packages, no pip
#      or setuptools of its own, so the installed ones count): the wheel installed over them,
#      then every extra it declares (pip install --no-index 'WHEEL[web,tui,...]': each
#      requirement of each extra must resolve, nothing is downloaded; an extra this script
#      has no check for fails) and each extra's modules imported from the wheel;
#      with an empty numba cache: a bot from the shipped weights moves, lostcities.envs.vector
#      steps, lostcities serve --help, and the README's first command, lostcities serve,
#      answers /healthz, the home page and its static files from the installed package
#   4. LOSTCITIES_WHEEL_FRESH="tui web ... readme" (optional; downloads from the configured
#      index): each named extra installed from the index in a fresh virtual environment of its
#      own, its modules imported; "readme": the README's quick start as written (pip install
#      '.[web,fast]' in the unpacked sdist, then lostcities serve answers) in a fresh one
#
# Run from anywhere; exits non-zero on the first failure. PYTHON: the interpreter.
set -euo pipefail
unset PYTHONPATH  # the fresh environments see only what is installed in them
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PYTHON="${PYTHON:-python3}"
work="$(mktemp -d /tmp/lostcities-wheel.XXXXXX)"
trap 'rm -rf "$work"' EXIT

version="$("$PYTHON" -c 'import re,pathlib; print(re.search(r"__version__ = \"(.+?)\"", pathlib.Path("lostcities/__init__.py").read_text()).group(1))')"
"$PYTHON" -m build --no-isolation --outdir "$work/dist" . >"$work/build.log" 2>&1 \
    || { cat "$work/build.log" >&2; exit 1; }
wheel="$work/dist/lostcities-$version-py3-none-any.whl"
sdist="$work/dist/lostcities-$version.tar.gz"
test -f "$wheel" && test -f "$sdist"
echo "built $(basename "$wheel") and $(basename "$sdist")"
tar -tzf "$sdist" >"$work/sdist.txt"
"$PYTHON" -m zipfile -l "$wheel" >"$work/wheel.txt"
for f in lostcities/data/net.npz lostcities/py.typed lostcities/tui/app.tcss \
         lostcities/web/templates/base.html lostcities/web/static/js/common.js \
         lostcities/web/static/i18n/en.json lostcities/web/migrations/env.py \
         lostcities/web/migrations/versions/rev_0001_baseline.py lostcities/data/bench/playout.c \
         lostcities/data/common_passwords.txt; do
    grep -q "lostcities-$version/$f" "$work/sdist.txt" || { echo "sdist lacks $f" >&2; exit 1; }
    grep -q "$f" "$work/wheel.txt" || { echo "wheel lacks $f" >&2; exit 1; }
done
# numba compiles on first use into its own cache; a cache shipped in the wheel would be
# another machine's (and stale): nothing compiled belongs in it
if grep -E '\.(nbi|nbc|pyc)( |$)|__pycache__' "$work/wheel.txt"; then
    echo "the wheel holds compiled caches (above)" >&2; exit 1
fi

# lostcities serve from the environment BIN_DIR ($1) answers /healthz, the home page and
# its static files (its database in the folder $2)
check_serve() {
    "$1/python" - "$1/lostcities" "$2" <<'PY'
import socket, subprocess, sys, time, urllib.request

exe, work = sys.argv[1], sys.argv[2]
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
log = open(f"{work}/serve.log", "w+b")
server = subprocess.Popen([exe, "serve", "--port", str(port), "--db", f"sqlite:///{work}/web.db"],
                          stdout=log, stderr=subprocess.STDOUT)
base = f"http://127.0.0.1:{port}"
try:
    deadline = time.monotonic() + 300  # the shared machine may be loaded
    while True:
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=10) as r:
                assert r.status == 200
                break
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                sys.exit(f"lostcities serve did not answer: {log.read().decode()[-2000:]}")
            time.sleep(0.5)
    with urllib.request.urlopen(f"{base}/", timeout=30) as r:
        page = r.read().decode()
    assert r.status == 200 and "/static/" in page, page[:500]
    for path in ("/static/js/common.js", "/static/i18n/en.json"):
        with urllib.request.urlopen(base + path, timeout=30) as r:
            assert r.status == 200 and r.read(), path
    print(f"{exe} serve: /healthz, the home page and its static files")
finally:
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
PY
}

# -- a fresh environment: the core only
"$PYTHON" -m venv "$work/bare"
bare="$work/bare/bin"
"$bare/pip" install -q --no-index "$wheel"
cd "$work"  # not the source tree: the installed package is what runs
test "$("$bare/lostcities" --version)" = "lostcities $version"
"$bare/lostcities" score y:2,4,6,9,10 r:x,3,5 | tee "$work/score.txt"
grep -q . "$work/score.txt"
"$bare/python" -c "import lostcities, sys; r = lostcities.Round.deal(seed=1); r.push(r.legal_moves()[0]); assert 'numpy' not in sys.modules; print('import lostcities', lostcities.__version__)"
cd - >/dev/null

# -- with the extras: shipped weights, the server's CLI, the compiled engine from no cache
# without pip and setuptools of its own (3.11's venv would add setuptools 65, shadowing the
# installed one that torch requires): the installed pip runs for this environment
"$PYTHON" -m venv --system-site-packages --without-pip "$work/full"
full="$work/full/bin"
pip_full=("$full/python" -m pip --disable-pip-version-check)
"${pip_full[@]}" install -q --no-deps --no-index --force-reinstall "$wheel"
cd "$work"
# each extra the wheel declares, and what shows it works: modules to import
declare -A extra_modules=(
    [web]="lostcities.web.app"
    [tui]="lostcities.tui.app"
    [fast]="lostcities.fast.kernels numba"
    [rl]="lostcities.envs.pettingzoo lostcities.envs.gymnasium lostcities.envs.openspiel"
    [arena]="lostcities.arena matplotlib.pyplot rich.progress"
    [connect]="lostcities.connect httpx"
    [train]="lostcities.train.model torch"
    [ray]="ray"
    [docs]="mkdocs mkdocstrings_handlers.python"
    [all]="lostcities.web.app lostcities.tui.app lostcities.envs.openspiel"
    [dev]="pytest hypothesis build"
)
extras="$("$full/python" -c "
import importlib.metadata as m
print(' '.join(m.metadata('lostcities').get_all('Provides-Extra') or []))")"
test -n "$extras"
modules=""
for extra in $extras; do
    test -n "${extra_modules[$extra]:-}" \
        || { echo "extra $extra: no check in scripts/check_wheel.sh" >&2; exit 1; }
    modules="$modules ${extra_modules[$extra]}"
done
# one resolution for all of them (each alone takes as long); on a failure, find which
if ! "${pip_full[@]}" install -q --no-index "$wheel[${extras// /,}]"; then
    for extra in $extras; do
        "${pip_full[@]}" install -q --no-index "$wheel[$extra]" >/dev/null 2>&1 \
            || echo "extra $extra: its requirements do not resolve" >&2
    done
    exit 1
fi
# shellcheck disable=SC2086  # one module name a word
"$full/python" -c "
import importlib, sys
for name in dict.fromkeys(sys.argv[1:]):
    mod = importlib.import_module(name)
    assert not name.startswith('lostcities') or '/full/' in (mod.__file__ or ''), mod
" $modules
echo "extras ${extras// /, }: install from the wheel; import $(echo $modules | wc -w) modules"
"$full/python" - <<'PY'
import lostcities
assert "/full/" in lostcities.__file__, lostcities.__file__
from lostcities import Round
from lostcities.bots import make
r = Round.deal(seed=2)
bot = make("net", seed=0)
move = bot.choose(r.view(r.to_move))
assert move in r.legal_moves()
print("net bot from the shipped weights plays", move)
PY
"$full/lostcities" serve --help >/dev/null
echo "lostcities serve --help: ok"
# the README's first command (pip install '.[web,fast]' && lostcities serve), from the wheel
check_serve "$full" "$work"
"$full/python" -c "
from lostcities.envs.vector import LostCitiesVectorEnv
e = LostCitiesVectorEnv(4); e.reset(seed=0); e.step(e.sample_legal_actions()); print('vector env steps')"

# -- optional: each named extra from the index, in a fresh environment of its own
for extra in ${LOSTCITIES_WHEEL_FRESH:-}; do
    if [ "$extra" = readme ]; then
        # the README's quick start as written, in the unpacked sdist (an isolated build:
        # setuptools comes from the index too)
        tar -xzf "$sdist" -C "$work"
        "$PYTHON" -m venv "$work/fresh-readme"
        (cd "$work/lostcities-$version" && "$work/fresh-readme/bin/pip" install -q '.[web,fast]')
        check_serve "$work/fresh-readme/bin" "$work"
        echo "the README's pip install '.[web,fast]' && lostcities serve: ok in a fresh environment"
        continue
    fi
    modules="${extra_modules[$extra]:-}"
    test -n "$modules" || { echo "LOSTCITIES_WHEEL_FRESH: no extra $extra" >&2; exit 1; }
    "$PYTHON" -m venv "$work/fresh-$extra"
    "$work/fresh-$extra/bin/pip" install -q "$wheel[$extra]"
    "$work/fresh-$extra/bin/python" -c "
import importlib, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
" $modules
    echo "extra $extra in a fresh environment: installs from the index; imports $modules"
done
echo "wheel checks passed"
