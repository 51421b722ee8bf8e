# stub: replaced by the action stream at integration
import json


def render_markdown(doc, *, limit=65000):
    return "```json\n" + json.dumps(doc, indent=2)[:limit] + "\n```\n"
