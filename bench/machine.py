"""The machine a benchmark ran on, printed beside its figures (every bench's report)."""

from __future__ import annotations

import os
import platform
from typing import Any


def machine() -> dict[str, Any]:
    """What the figures depend on: cores, CPU model, Python, and how busy the machine was."""
    model = "unknown"
    with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "nproc": os.cpu_count(),
        "cpu": model,
        "python": platform.python_version(),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }
