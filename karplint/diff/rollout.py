# stub: replaced by the rollout stream at integration
def rollout(head_pool, *, drift_verdict, nodes, start=None):
    return None


def nodes_for(pool, *, cli_nodes, config):
    return cli_nodes
