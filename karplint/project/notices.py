"""What discovery found but the check cannot read, said once per file as extra problems of the run: discovery
problems (KPL003) and Karpenter objects in program code (KPL016: karplint/readers/foreign.py). (Helm chart templates
are read as templates: karplint/readers/chart_templates.py.)"""

from __future__ import annotations

from karplint.readers.files import read_regular
from karplint.readers.loader import Problem
from karplint.readers.source import Span


def discovery_notices(found) -> list[tuple[str, Problem]]:
    """(display, problem) for each problem and unreadable file of a `karplint.discover.DiscoveryResult`."""
    extra = [(p.display, Problem("KPL003", p.message, Span.point(1, 1))) for p in found.problems]
    if found.code_files:  # Karpenter objects karplint cannot read: one notice per file
        from karplint.readers.foreign import notices

        extra.extend(notices(found.code_files, read_regular))
    return extra
