"""The dependency audit's policy (scripts/audit.py): a known vulnerability with a fix fails
CI, one without a fix warns, and an audit that could reach no database passes offline but
fails when strict."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "audit.py"
spec = importlib.util.spec_from_file_location("audit_script", SCRIPT)
assert spec is not None and spec.loader is not None
audit = importlib.util.module_from_spec(spec)
spec.loader.exec_module(audit)


def dep(name: str, *vulns: tuple[str, list[str]]) -> dict[str, object]:
    return {
        "name": name,
        "version": "1.0",
        "vulns": [{"id": i, "fix_versions": f} for i, f in vulns],
    }


def test_a_fixable_vulnerability_fails() -> None:
    code, lines = audit.decide(
        {"dependencies": [dep("ok"), dep("bad", ("PYSEC-1", ["1.1"]))]}, False
    )
    assert code == 1 and any("bad 1.0: PYSEC-1 (fixed in 1.1)" in x for x in lines)


def test_a_vulnerability_without_a_fix_warns() -> None:
    code, lines = audit.decide({"dependencies": [dep("old", ("GHSA-x", []))]}, False)
    assert code == 0 and any("warning" in x and "no fix" in x for x in lines)


def test_nothing_audited_passes_offline_and_fails_strict() -> None:
    skipped = {"dependencies": [{"name": "a", "skip_reason": "not found"}]}
    assert audit.decide(skipped, False)[0] == 0
    assert audit.decide(skipped, True)[0] == 1
    assert audit.decide(None, False)[0] == 0 and audit.decide(None, True)[0] == 1
    assert "nothing was audited" in audit.decide(None, False)[1][0]
