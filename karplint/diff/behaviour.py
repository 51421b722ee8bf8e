# stub: replaced by the rollout stream at integration
def behaviour_changes(pair):
    return []
