"""Provisioning simulation: which NodePools (and instance types) can host which workloads."""

# In `PoolSimulation.rejected_by`, the types the EC2NodeClass cannot run (`nodepools.class_incompatible`): not a
# requirement key. Here, so that the rules can name it without loading the simulation.
NODECLASS_KEY = "EC2NodeClass"
