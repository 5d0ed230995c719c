#!/usr/bin/env bash
# Build the wheel and the sdist, then install the wheel where nothing else is and use it.
#
#   1. python -m build --no-isolation  -> dist/lostcities-VERSION-py3-none-any.whl + .tar.gz
#   2. a fresh virtual environment (no system packages): pip install the wheel (the core has
#      no dependencies, so nothing is downloaded); lostcities --version, lostcities score,
#      import lostcities, the sdist holds the package data
#   3. a virtual environment that sees the installed extras (--system-site-packages): the
#      wheel installed over them (--no-deps), with an empty numba cache: a bot from the
#      shipped weights moves, lostcities serve --help, lostcities.envs.vector steps
#
# Run from anywhere; exits non-zero on the first failure. PYTHON: the interpreter.
set -euo pipefail
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
for f in lostcities/data/net.npz lostcities/py.typed lostcities/tui/app.tcss; do
    grep -q "lostcities-$version/$f" "$work/sdist.txt" || { echo "sdist lacks $f" >&2; exit 1; }
    grep -q "$f" "$work/wheel.txt" || { echo "wheel lacks $f" >&2; exit 1; }
done

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
"$PYTHON" -m venv --system-site-packages "$work/full"
full="$work/full/bin"
"$full/pip" install -q --no-deps --no-index --force-reinstall "$wheel"
cd "$work"
export NUMBA_CACHE_DIR="$work/numba-cache"  # empty: nothing compiled at install is needed
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
"$full/python" -c "
from lostcities.envs.vector import LostCitiesVectorEnv
e = LostCitiesVectorEnv(4); e.reset(seed=0); e.step(e.sample_legal_actions()); print('vector env steps')"
echo "wheel checks passed"
