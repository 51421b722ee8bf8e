"""Simulations of Karpenter's disruption behaviour (no findings here: rules and commands call it).

`budgets`: the effective disruption budget of a NodePool per reason over a week, as intervals.
`schedule`: the cron schedules of budgets, expanded the way Karpenter's cron library expands them.
"""
