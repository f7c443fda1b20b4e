"""axe-core in the page: inject the pinned axe.min.js (clients/web/node_modules) and run it.

A page "passes" when axe finds no serious or critical violation; every count is printed so the
test output (``-s``, or pytest's captured output on a failure) tells what each page scored.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page

from tests.web.conftest import ROOT

AXE = ROOT / "clients" / "web" / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")

RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations.map((v) => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => n.target.join(" ") + " :: " + (n.failureSummary || "")
      .split("\\n").slice(0, 2).join(" "))}));
}"""


def axe_violations(page: Page, where: str) -> list[dict[str, Any]]:
    """Run axe on the page as it is now; print its counts by impact; return every violation."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found: list[dict[str, Any]] = page.evaluate(RUN)
    counts = dict.fromkeys(("critical", "serious", "moderate", "minor"), 0)
    for violation in found:
        counts[violation["impact"] or "minor"] += len(violation["nodes"])
    print(f"axe {where}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    for violation in found:
        print(f"  {violation['impact']} {violation['id']}: {violation['help']}")
        for node in violation["nodes"][:4]:
            print(f"    {node}")
    return found


def blocking(found: list[dict[str, Any]]) -> list[str]:
    """The serious and critical violations, one line each (rule and first elements)."""
    return [
        f"{v['id']} ({v['impact']}): {v['nodes'][:3]}" for v in found if v["impact"] in BLOCKING
    ]


def assert_accessible(page: Page, where: str) -> None:
    problems = blocking(axe_violations(page, where))
    assert not problems, f"axe on {where}: {problems}"
