"""karplint: a static linter for Karpenter configuration.

The packages follow the pipeline, one way:

    discover/  ->  readers/  ->  model/  ->  schema/ userdata/ provisioning/  ->  rules/  ->  report/
    files          documents     resources   simulations of what the API server,        findings   text/json/
                   with positions             the node and Karpenter will do                       sarif/github

engine/ runs the stages (per file in worker processes, then across files, with the cache); fix/ applies the
fixes rules offer; cli/ is the command line; config.py, findings.py and docs.py hold what every stage shares.
"""

__version__ = "0.1.0"
