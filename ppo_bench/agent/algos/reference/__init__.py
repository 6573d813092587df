"""agent.algo=reference: the reference's workload (`algorithm`), with its keys (`config`)."""
