"""Audit the installed dependencies for known vulnerabilities (``pip-audit``), as CI runs it.

    python scripts/audit.py            # exit 1 on a known vulnerability that has a fix
    LOSTCITIES_AUDIT_STRICT=1 python scripts/audit.py   # also exit 1 when nothing could be audited

The policy (docs/web.md, "Dependency audit"):

- a vulnerability with a fixed version available fails the run: upgrade (or pin past it);
- one with no fix yet is printed as a warning (nothing to upgrade to);
- when no vulnerability database can be reached (offline CI, a mirror without PyPI's JSON
  API) nothing could be audited: that is said plainly and the run passes, so that CI is not
  flaky offline, unless ``LOSTCITIES_AUDIT_STRICT=1`` (for a release machine that is online).

The installed environment is what gets audited: ``pip install -e '.[dev]'`` resolved the
extras' ranges to exact versions there, and those versions are what the tests ran against.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any


def decide(report: dict[str, Any] | None, strict: bool) -> tuple[int, list[str]]:
    """The exit code and the lines to print for a ``pip-audit -f json`` report (``None``: it
    could not run or reach its database)."""
    if report is None:
        return (1 if strict else 0), [
            "audit: no vulnerability database could be reached: nothing was audited"
        ]
    deps = report.get("dependencies", [])
    audited = [d for d in deps if "skip_reason" not in d]
    lines: list[str] = []
    fixable = 0
    for d in audited:
        for v in d.get("vulns", []):
            fix = ", ".join(v.get("fix_versions") or [])
            if fix:
                fixable += 1
                lines.append(f"audit: {d['name']} {d['version']}: {v['id']} (fixed in {fix})")
            else:
                lines.append(f"audit: warning: {d['name']} {d['version']}: {v['id']} (no fix yet)")
    if not audited:
        lines.append(
            f"audit: none of the {len(deps)} dependencies could be looked up (offline, or a"
            " package mirror without the vulnerability API): nothing was audited"
        )
        return (1 if strict else 0), lines
    lines.append(
        f"audit: {len(audited)} of {len(deps)} dependencies audited, {fixable} known"
        " vulnerabilities with a fix"
    )
    return (1 if fixable else 0), lines


def main() -> int:
    strict = os.environ.get("LOSTCITIES_AUDIT_STRICT", "") not in ("", "0")
    try:
        import pip_audit  # noqa: F401
    except ImportError:
        print("audit: pip-audit is not installed (pip install -e '.[dev]')", file=sys.stderr)
        return 1 if strict else 0
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip_audit",
            "--progress-spinner",
            "off",
            "--skip-editable",
            "-f",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    report: dict[str, Any] | None
    try:
        report = json.loads(out.stdout)
    except ValueError:
        report = None
        tail = (out.stderr.strip().splitlines() or ["(no output)"])[-1]
        print(f"audit: pip-audit could not finish: {tail}", file=sys.stderr)
    code, lines = decide(report, strict)
    for line in lines:
        print(line)
    return code


if __name__ == "__main__":
    sys.exit(main())
